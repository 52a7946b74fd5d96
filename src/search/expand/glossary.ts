/**
 * A small curated glossary of software-development vocabulary: groups of English words and phrases and Simplified
 * Chinese terms that name the same thing in a coding agent's rounds (shutdown / graceful exit / terminate / 优雅退出,
 * flaky / intermittent / 偶发, timeout / 超时…). A query word that belongs to a group brings the group's other members
 * as expansion terms (weighted below the user's own words); Traditional forms are produced by the script converter.
 *
 * Why curated and small: general dictionaries (CC-CEDICT, WordNet) do not know that "flaky" means 偶发 or that a
 * "stale process holding the port" is EADDRINUSE territory, and WordNet's synonyms for developer words are mostly
 * other senses ("port" → "larboard"; measured in docs/search.md). Each group is one concept; members are
 * lowercased; an English member is a word or a phrase of up to three words. Identifiers and error codes are not
 * members: they are never expanded, and never produced.
 * @module dsh-knowledge-sync/search/expand/glossary
 */

/** The groups, one concept a line: members separated by `|`. */
export const GLOSSARY_GROUPS: readonly string[] = [
  // Processes and lifecycle
  'shutdown|shut down|graceful exit|graceful shutdown|terminate|termination|stop the process|优雅退出|优雅关闭|关闭|停机|退出',
  'restart|reboot|relaunch|重启|重新启动',
  'crash|crashed|segfault|panic|崩溃|闪退|挂掉',
  'hang|hangs|stuck|freeze|frozen|unresponsive|卡住|卡死|无响应|假死',
  'process|processes|进程',
  'thread|threads|线程',
  'daemon|background service|后台服务|守护进程',
  'kill|killed|杀掉|杀死|被杀',
  'stale|orphan|zombie|残留|僵尸进程',
  'port|ports|端口',
  'in use|already in use|occupied|被占用|占用',
  // Testing
  'flaky|intermittent|intermittently|sporadic|random failure|unstable|偶发|偶尔|不稳定|时好时坏',
  'test|tests|testing|测试|用例',
  'integration test|integration tests|集成测试',
  'unit test|unit tests|单元测试',
  'end-to-end|e2e|端到端',
  'mock|stub|fake|模拟',
  'ci|pipeline|continuous integration|流水线|持续集成',
  // Time
  'timeout|timed out|time out|times out|超时|超時',
  'timezone|time zone|时区',
  'daylight saving|dst|clock change|夏令时',
  'schedule|scheduled job|cron|cron job|定时任务|计划任务',
  'timer|interval|定时器|计时器',
  'expire|expired|expiry|expiration|过期|失效|到期',
  // Memory and performance
  'memory|ram|内存',
  'memory leak|leak|leaks|leaking|内存泄漏|泄漏|泄露',
  'out of memory|oom|ran out of memory|内存不足|内存溢出',
  'slow|latency|performance|慢|缓慢|性能|延迟',
  'cache|caching|cached|缓存',
  'stale cache|cache invalidation|invalidate|purge|缓存失效|清除缓存',
  'rate limit|rate limiting|throttle|throttled|throttling|限流|频率限制',
  'too many requests|请求过多|请求太多',
  'retry|retries|backoff|重试',
  'disk|disk space|storage|磁盘|硬盘|存储',
  'full|filled|no space|写满|占满|满了',
  // Data
  'database|db|数据库|资料库',
  'connection pool|pool|连接池',
  'connection|connections|连接',
  'deadlock|死锁',
  'lock|locked|locking|锁|锁定',
  'transaction|transactions|事务',
  'migration|schema change|migrate|迁移|表结构变更',
  'rollback|roll back|revert|undo|回滚|撤销|撤回|回退',
  'backup|backups|备份',
  'restore|recover|recovery|还原|恢复',
  'index|indexes|索引',
  'query|queries|查询',
  'duplicate|duplicated|twice|again|重复|两次',
  'encoding|charset|编码',
  'garbled|mojibake|乱码',
  'export|导出',
  'import|导入',
  'upload|uploading|上传',
  'download|downloading|下载',
  'large file|big file|large files|大文件',
  // Deploy and infrastructure
  'deploy|deployment|deploying|release|rollout|发布|部署|上线',
  'container|docker|容器',
  'image|container image|镜像',
  'size|bloated|体积|大小',
  'mirror|registry mirror|镜像源',
  'proxy|reverse proxy|代理|反向代理',
  'gateway|网关',
  'load balancer|负载均衡',
  'log|logs|logging|日志',
  'log rotation|logrotate|日志轮转|日志切割',
  'environment variable|environment variables|env var|环境变量',
  'secret|secrets|private key|api key|credential|credentials|密钥|私钥|凭据',
  'certificate|cert|tls|ssl|https|证书',
  'permission|permissions|access denied|权限',
  'replica|replicas|instance|instances|副本|实例',
  'config|configuration|settings|配置|设置',
  'network|networking|网络',
  'firewall|防火墙',
  'install|installation|setup|安装',
  'dependency|dependencies|package|packages|依赖|依赖包',
  'version conflict|incompatible|conflict|版本冲突|冲突',
  'upgrade|update|bump|升级|更新',
  'build|compile|构建|编译|打包',
  'bundle|bundler|打包',
  'hot reload|hot module replacement|hmr|live reload|热更新|热重载',
  // Web
  'frontend|front end|client side|browser|前端|浏览器',
  'backend|back end|server side|后端|服务端',
  'api|endpoint|接口',
  'request|requests|请求',
  'response|响应',
  'blank page|white screen|empty page|白屏|空白页|页面空白',
  'cross-origin|cross-site|cors|跨域',
  'blocked|rejected|refused|denied|拦截|被拒绝|阻止',
  'login|log in|sign in|signed in|sign-in|登录|登入',
  'logout|log out|logged out|signed out|kicked out|登出|退出登录|被踢出',
  'session|sessions|会话',
  'token|tokens|令牌',
  'password|passwords|密码',
  'hash|hashing|digest|哈希|散列',
  'signature|signing|签名',
  'webhook|callback|回调',
  'payment|payments|支付|付款',
  'redirect|redirects|重定向|跳转',
  'component|components|组件',
  'unmount|unmounted|卸载',
  'page|pages|页面',
  'price|prices|价格',
  // Errors and debugging
  'error|errors|failure|fails|failed|报错|错误|失败',
  'bug|defect|缺陷',
  'warning|warnings|警告',
  'stack trace|traceback|堆栈|调用栈',
  'source map|source maps|sourcemap|源码映射',
  'minified|混淆',
  'debug|debugging|调试|排查',
  'monitoring|alert|alerts|监控|告警',
  'watcher|watchers|file watcher|监听|监视',
  'listener|listeners|event listener|监听器',
  'limit|limits|quota|cap|上限|限制|配额',
  'undefined|not defined|未定义',
  'null|empty|空值',
  // Version control
  'commit|commits|提交',
  'branch|branches|分支',
  'merge|merging|合并',
  'rebase|变基',
  'clone|克隆',
  'pull request|merge request|代码评审|合并请求',
]

/** One parsed member: its words (lowercased; Chinese members are one "word"), and whether it is Chinese. */
export interface GlossaryMember {
  text: string
  words: string[]
  chinese: boolean
}

const HAN = /[\u3400-\u9FFF]/

/** The groups, parsed (a member belongs to every group it is listed in). */
export function parseGlossary(groups: readonly string[] = GLOSSARY_GROUPS): GlossaryMember[][] {
  return groups.map((g) =>
    g
      .split('|')
      .map((m) => m.trim().toLowerCase())
      .filter(Boolean)
      .map((text) => ({
        text,
        chinese: HAN.test(text),
        words: HAN.test(text) ? [text] : text.split(/[\s]+/),
      })),
  )
}
