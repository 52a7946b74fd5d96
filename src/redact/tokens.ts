/**
 * Provider and format rules: credentials recognisable by their own shape (a fixed prefix or anchor plus a bounded
 * body), after gitleaks/trufflehog/secretlint default rules. One literal-prefix alternation finds candidates in a
 * single pass; each candidate's left boundary is checked in code and only then is the rule's sticky regex run at that
 * spot, so a run of repeated prefixes (`ghs_1_ghs_1_…`) costs one attempt per run, not one per prefix. Also PEM /
 * PGP / OpenSSH / PuTTY private-key blocks (including JSON-escaped ones; in `private-keys.ts`) and AWS key-id + secret
 * pairs.
 * @module dsh-knowledge-sync/redact/tokens
 */
import { isTokenPlaceholder, looksRandom, shannon } from './allow.js'
import { isEscapeLetter, PRIORITY, type Span } from './scan.js'
import { scanPrivateKeyBlocks } from './private-keys.js'

/** A shape rule. `re` is matched sticky at the candidate's start; the secret is group `group` (default: all). */
interface TokenRule {
  family: string
  /** Literal(s) that start the token, or that sit `left` characters into it. */
  anchors: string[]
  re: RegExp
  group?: number
  /** For mid-token anchors: how the token extends left of the anchor (a run of `cls`, `min`..`max` long). */
  left?: { cls: RegExp; min: number; max: number }
  /** `token` (default): not preceded by `[A-Za-z0-9_-]` unless that is an escape letter; `digit`: not by a digit. */
  boundary?: 'token' | 'digit' | 'none'
  /** Extra acceptance test on the secret. */
  check?: (secret: string) => boolean
  priority?: number
  /** Skip the stand-in test (shapes whose body is mostly fixed text). */
  noPlaceholderTest?: boolean
}

const hasDigit = (s: string): boolean => /[0-9]/.test(s)
const entropyAtLeast =
  (h: number) =>
  (s: string): boolean =>
    shannon(s) >= h

/** The rules, most specific first within a shared anchor (`sk-ant-` before `sk-`). */
const RULES: TokenRule[] = [
  // --- VCS and CI ---
  { family: 'github', anchors: ['ghs_'], re: /ghs_[0-9]{1,20}_[A-Za-z0-9_-]{1,1000}\.[A-Za-z0-9_-]{1,4000}\.[A-Za-z0-9_-]{1,1000}(?![A-Za-z0-9_-])/y },
  { family: 'github', anchors: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], re: /gh[pousr]_[A-Za-z0-9]{30,251}(?![A-Za-z0-9_])/y, check: hasDigit },
  { family: 'github', anchors: ['github_pat_'], re: /github_pat_[A-Za-z0-9_]{50,251}(?![A-Za-z0-9_])/y },
  {
    family: 'gitlab',
    anchors: ['glpat-', 'gldt-', 'glptt-', 'glrt-', 'glcbt-', 'glft-', 'glimt-', 'glsoat-', 'gloas-', 'glagent-', 'glffct-', 'glwt-'],
    re: /gl[a-z]{1,6}-[A-Za-z0-9_-]{20,255}(?:\.[A-Za-z0-9_-]{1,64}){0,3}(?![A-Za-z0-9_-])/y,
    check: entropyAtLeast(3),
  },
  { family: 'gitlab', anchors: ['GR1348941'], re: /GR1348941[A-Za-z0-9_-]{20,64}(?![A-Za-z0-9_-])/y },
  { family: 'npm', anchors: ['npm_'], re: /npm_[A-Za-z0-9]{36,64}(?![A-Za-z0-9_])/y },
  { family: 'pypi', anchors: ['pypi-AgE'], re: /pypi-AgE[A-Za-z0-9_-]{50,1000}(?![A-Za-z0-9_-])/y },
  { family: 'circleci', anchors: ['CCIPAT_', 'CCIPRJ_'], re: /CCIP(?:AT|RJ)_[A-Za-z0-9]{10,40}_[a-f0-9]{40}(?![A-Za-z0-9])/y },
  { family: 'buildkite', anchors: ['bkua_'], re: /bkua_[a-f0-9]{40}(?![A-Za-z0-9])/y },
  { family: 'heroku', anchors: ['HRKU-'], re: /HRKU-[A-Za-z0-9_-]{20,80}(?![A-Za-z0-9_-])/y },
  { family: 'doppler', anchors: ['dp.pt.', 'dp.st.', 'dp.sa.', 'dp.ct.', 'dp.scim.', 'dp.audit.'], re: /dp\.[a-z]{2,5}\.[A-Za-z0-9]{40,44}(?![A-Za-z0-9])/y },
  { family: 'vault', anchors: ['hvs.', 'hvb.'], re: /hv[sb]\.[A-Za-z0-9_-]{90,300}(?![A-Za-z0-9_-])/y },
  { family: 'terraform', anchors: ['.atlasv1.'], left: { cls: /[A-Za-z0-9]/, min: 14, max: 14 }, re: /[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}(?![A-Za-z0-9_=-])/y },
  { family: 'pulumi', anchors: ['pul-'], re: /pul-[a-f0-9]{40}(?![A-Za-z0-9])/y },
  { family: 'docker', anchors: ['dckr_pat_', 'dckr_oat_'], re: /dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,64}(?![A-Za-z0-9_-])/y },
  { family: 'vercel', anchors: ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'], re: /vc[pcikr]_[A-Za-z0-9]{20,60}(?![A-Za-z0-9])/y, check: hasDigit },
  { family: 'databricks', anchors: ['dapi'], re: /dapi[a-f0-9]{32}(?:-[0-9])?(?![A-Za-z0-9])/y },
  { family: 'grafana', anchors: ['glc_'], re: /glc_[A-Za-z0-9+/]{32,400}={0,2}(?![A-Za-z0-9+/=])/y },
  { family: 'grafana', anchors: ['glsa_'], re: /glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}(?![A-Za-z0-9])/y },
  { family: 'linear', anchors: ['lin_api_'], re: /lin_api_[A-Za-z0-9]{32,128}(?![A-Za-z0-9])/y },
  { family: 'notion', anchors: ['ntn_'], re: /ntn_[0-9]{11}[A-Za-z0-9]{35}(?![A-Za-z0-9])/y },
  { family: 'notion', anchors: ['secret_'], re: /secret_[A-Za-z0-9]{43}(?![A-Za-z0-9_])/y, check: (s) => hasDigit(s) && shannon(s) >= 4 },
  { family: 'shopify', anchors: ['shpat_', 'shpca_', 'shppa_', 'shpss_'], re: /shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32,64}(?![A-Za-z0-9])/y },
  { family: '1password', anchors: ['ops_ey'], re: /ops_ey[A-Za-z0-9+/=_-]{100,1280}(?![A-Za-z0-9+/=_-])/y },
  { family: 'cloudflare', anchors: ['cfk_', 'cfut_', 'cfat_'], re: /(?:cfk|cfut|cfat)_[A-Za-z0-9]{40}[0-9a-f]{8}(?![A-Za-z0-9])/y },
  { family: 'tailscale', anchors: ['tskey-'], re: /tskey-[a-z]{2,20}-[0-9A-Za-z_]{8,40}-[0-9A-Za-z_]{16,60}(?![0-9A-Za-z_])/y },
  { family: 'figma', anchors: ['figd_'], re: /figd_[A-Za-z0-9_-]{40,200}(?![A-Za-z0-9_-])/y },
  { family: 'atlassian', anchors: ['ATATT3'], re: /ATATT3[A-Za-z0-9_=-]{150,300}(?![A-Za-z0-9_=-])/y },
  { family: 'postman', anchors: ['PMAK-'], re: /PMAK-[a-f0-9]{24}-[a-f0-9]{34}(?![A-Za-z0-9])/y },
  { family: 'digitalocean', anchors: ['dop_v1_', 'doo_v1_', 'dor_v1_'], re: /do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])/y },
  { family: 'sentry', anchors: ['sntrys_', 'sntryu_'], re: /sntry[su]_[A-Za-z0-9+/=_]{40,400}(?![A-Za-z0-9+/=_])/y },
  { family: 'newrelic', anchors: ['NRAK-'], re: /NRAK-[A-Z0-9]{27}(?![A-Za-z0-9])/y },
  // --- payments, chat, mail ---
  { family: 'stripe', anchors: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'], re: /[sr]k_(?:live|test)_[A-Za-z0-9]{10,247}(?![A-Za-z0-9])/y, check: hasDigit },
  { family: 'stripe', anchors: ['whsec_'], re: /whsec_[A-Za-z0-9+/=]{24,100}(?![A-Za-z0-9+/=])/y },
  { family: 'square', anchors: ['sq0atp-'], re: /sq0atp-[0-9A-Za-z_-]{22}(?![A-Za-z0-9_-])/y },
  { family: 'square', anchors: ['sq0csp-'], re: /sq0csp-[0-9A-Za-z_-]{43}(?![A-Za-z0-9_-])/y },
  { family: 'square', anchors: ['EAAA'], re: /EAAA[A-Za-z0-9_-]{60}(?![A-Za-z0-9_-])/y, check: entropyAtLeast(4) },
  { family: 'twilio', anchors: ['SK'], re: /SK[0-9a-fA-F]{32}(?![A-Za-z0-9])/y, check: (s) => hasDigit(s) && /[a-fA-F]/.test(s.slice(2)) },
  { family: 'sendgrid', anchors: ['SG.'], re: /SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/y },
  { family: 'mailchimp', anchors: ['-us'], left: { cls: /[0-9a-f]/, min: 32, max: 32 }, re: /[0-9a-f]{32}-us[0-9]{1,2}(?![A-Za-z0-9])/y },
  { family: 'mailgun', anchors: ['key-'], re: /key-[0-9a-f]{32}(?![A-Za-z0-9])/y, check: (s) => hasDigit(s) && /[a-f]/.test(s.slice(4)) },
  {
    family: 'slack',
    anchors: ['xoxb-', 'xoxp-', 'xoxa-', 'xoxo-', 'xoxs-', 'xoxr-', 'xoxe-', 'xoxe.'],
    re: /xox[abposre][.-](?:xox[bp]-)?[0-9A-Za-z-]{10,250}(?![0-9A-Za-z_-])/y,
    check: (s) => (s.match(/[0-9]/g)?.length ?? 0) >= 6,
  },
  { family: 'slack', anchors: ['xapp-'], re: /xapp-[0-9]-[A-Za-z0-9-]{20,200}(?![A-Za-z0-9_-])/y, check: hasDigit },
  { family: 'slack', anchors: ['hooks.slack.com/'], re: /hooks\.slack\.com\/(?:services|workflows|triggers)\/([A-Za-z0-9_/-]{20,200})/y, group: 1, boundary: 'none' },
  {
    family: 'discord',
    anchors: ['discord.com/api/webhooks/', 'discordapp.com/api/webhooks/'],
    re: /discord(?:app)?\.com\/api\/webhooks\/[0-9]{17,20}\/([A-Za-z0-9_-]{60,100})/y,
    group: 1,
    boundary: 'none',
  },
  { family: 'telegram', anchors: [':AA'], left: { cls: /[0-9]/, min: 5, max: 16 }, re: /[0-9]{5,16}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/y, boundary: 'digit' },
  // --- LLM providers ---
  { family: 'anthropic', anchors: ['sk-ant-'], re: /sk-ant-[A-Za-z0-9_-]{20,300}(?![A-Za-z0-9_-])/y, check: hasDigit },
  { family: 'openrouter', anchors: ['sk-or-'], re: /sk-or-v1-[a-f0-9]{64}(?![A-Za-z0-9_-])/y },
  { family: 'openai', anchors: ['sk-proj-', 'sk-svcacct-', 'sk-admin-', 'sk-None-'], re: /sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,300}(?![A-Za-z0-9_-])/y, check: hasDigit },
  { family: 'openai', anchors: ['sk-'], re: /sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}(?![A-Za-z0-9_-])/y },
  { family: 'deepseek', anchors: ['sk-'], re: /sk-[a-f0-9]{32}(?![A-Za-z0-9_-])/y, check: (s) => hasDigit(s) && /[a-f]/.test(s.slice(3)) },
  { family: 'openai', anchors: ['sk-'], re: /sk-[A-Za-z0-9]{48}(?![A-Za-z0-9_-])/y, check: hasDigit },
  { family: 'llm-api-key', anchors: ['sk-'], re: /sk-[A-Za-z0-9_-]{20,300}(?![A-Za-z0-9_-])/y, check: (s) => hasDigit(s) && looksRandom(s.slice(3), 16) },
  { family: 'huggingface', anchors: ['hf_'], re: /hf_[A-Za-z0-9]{30,64}(?![A-Za-z0-9_])/y, check: entropyAtLeast(3.5) },
  { family: 'huggingface', anchors: ['api_org_'], re: /api_org_[A-Za-z0-9]{30,40}(?![A-Za-z0-9_])/y, check: entropyAtLeast(3.5) },
  { family: 'groq', anchors: ['gsk_'], re: /gsk_[A-Za-z0-9]{48,56}(?![A-Za-z0-9])/y },
  { family: 'xai', anchors: ['xai-'], re: /xai-[A-Za-z0-9]{60,100}(?![A-Za-z0-9])/y },
  { family: 'replicate', anchors: ['r8_'], re: /r8_[A-Za-z0-9]{37,40}(?![A-Za-z0-9])/y },
  { family: 'perplexity', anchors: ['pplx-'], re: /pplx-[A-Za-z0-9]{40,56}(?![A-Za-z0-9])/y },
  // --- more vendors with fixed prefixes (gitleaks rules, trufflehog detectors) ---
  { family: 'shippo', anchors: ['shippo_live_', 'shippo_test_'], re: /shippo_(?:live|test)_[a-f0-9]{40}(?![A-Za-z0-9])/y },
  { family: 'langsmith', anchors: ['lsv2_pt_', 'lsv2_sk_'], re: /lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}(?![A-Za-z0-9])/y },
  { family: 'langfuse', anchors: ['sk-lf-'], re: /sk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![A-Za-z0-9-])/y },
  { family: 'planetscale', anchors: ['pscale_tkn_', 'pscale_pw_', 'pscale_oauth_'], re: /pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}(?![A-Za-z0-9_.-])/y, check: hasDigit },
  { family: 'rubygems', anchors: ['rubygems_'], re: /rubygems_[a-f0-9]{48}(?![A-Za-z0-9])/y },
  { family: 'brevo', anchors: ['xkeysib-', 'xsmtpsib-'], re: /x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}(?![A-Za-z0-9])/y },
  { family: 'nvidia', anchors: ['nvapi-'], re: /nvapi-[A-Za-z0-9_-]{64}(?![A-Za-z0-9_-])/y, check: hasDigit },
  { family: 'flutterwave', anchors: ['FLWSECK_TEST-', 'FLWSECK-'], re: /FLWSECK(?:_TEST)?-[a-f0-9]{32}-X(?![A-Za-z0-9])/y },
  { family: 'sourcegraph', anchors: ['sgp_'], re: /sgp_(?:[a-f0-9]{16}_)?[a-f0-9]{40}(?![A-Za-z0-9])/y },
  { family: 'dynatrace', anchors: ['dt0c01.'], re: /dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}(?![A-Za-z0-9])/y },
  { family: 'dropbox', anchors: ['sl.'], re: /sl\.[A-Za-z0-9_=-]{130,160}(?![A-Za-z0-9_=-])/y, check: entropyAtLeast(4) },
  { family: 'flyio', anchors: ['fo1_'], re: /fo1_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/y },
  { family: 'clojars', anchors: ['CLOJARS_'], re: /CLOJARS_[a-z0-9]{60}(?![a-z0-9])/y },
  { family: 'facebook', anchors: ['EAAM', 'EAAC'], re: /EAA[MC][A-Za-z0-9]{100,400}(?![A-Za-z0-9])/y, check: entropyAtLeast(4) },
  { family: 'prefect', anchors: ['pnu_'], re: /pnu_[A-Za-z0-9]{36}(?![A-Za-z0-9])/y, check: hasDigit },
  { family: 'readme', anchors: ['rdme_'], re: /rdme_[a-z0-9]{70}(?![a-z0-9])/y },
  { family: 'apify', anchors: ['apify_api_'], re: /apify_api_[A-Za-z0-9]{36}(?![A-Za-z0-9])/y },
  { family: 'supabase', anchors: ['sbp_'], re: /sbp_[a-f0-9]{40}(?![A-Za-z0-9])/y },
  { family: 'supabase', anchors: ['sb_secret_'], re: /sb_secret_[A-Za-z0-9_-]{20,64}(?![A-Za-z0-9_-])/y },
  { family: 'mapbox', anchors: ['sk.eyJ'], re: /sk\.eyJ[A-Za-z0-9_-]{20,200}\.[A-Za-z0-9_-]{20,100}(?![A-Za-z0-9_-])/y },
  { family: 'pinecone', anchors: ['pcsk_'], re: /pcsk_[A-Za-z0-9_]{50,100}(?![A-Za-z0-9_])/y, check: hasDigit },
  { family: 'tavily', anchors: ['tvly-'], re: /tvly-(?:dev-)?[A-Za-z0-9]{32}(?![A-Za-z0-9])/y, check: hasDigit },
  { family: 'duffel', anchors: ['duffel_live_', 'duffel_test_'], re: /duffel_(?:live|test)_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/y },
  { family: 'spectral', anchors: ['spu-'], re: /spu-[a-f0-9]{32}(?![A-Za-z0-9])/y },
  { family: 'alchemy', anchors: ['alcht_'], re: /alcht_[A-Za-z0-9]{30}(?![A-Za-z0-9])/y },
  { family: 'bitbucket', anchors: ['BBDC-'], re: /BBDC-[A-Za-z0-9+/@_-]{44}(?![A-Za-z0-9+/@_-])/y, check: hasDigit },
  { family: 'harness', anchors: ['pat.'], re: /pat\.[A-Za-z0-9_-]{22}\.[0-9a-f]{24}\.[A-Za-z0-9]{20}(?![A-Za-z0-9])/y },
  { family: 'octopus', anchors: ['API-'], re: /API-[A-Z0-9]{26,32}(?![A-Za-z0-9])/y, check: (s) => hasDigit(s) && shannon(s.slice(4)) >= 3.5 },
  { family: 'easypost', anchors: ['EZAK', 'EZTK'], re: /EZ[AT]K[a-z0-9]{54}(?![A-Za-z0-9])/y },
  { family: 'typeform', anchors: ['tfp_'], re: /tfp_[A-Za-z0-9_.=-]{59}(?![A-Za-z0-9_.=-])/y },
  { family: 'launchdarkly', anchors: ['sdk-', 'mob-'], re: /(?:sdk|mob)-[a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}(?![A-Za-z0-9-])/y },
  { family: 'artifactory', anchors: ['AKCp'], re: /AKCp[A-Za-z0-9]{69}(?![A-Za-z0-9])/y },
  { family: 'newrelic', anchors: ['NRII-'], re: /NRII-[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])/y },
  { family: 'contentful', anchors: ['CFPAT-'], re: /CFPAT-[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/y },
  // --- cloud ---
  { family: 'aws', anchors: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'], re: /(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/y, check: (s) => !s.endsWith('EXAMPLE') },
  { family: 'google-api-key', anchors: ['AIza'], re: /AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/y },
  { family: 'google-oauth', anchors: ['GOCSPX-'], re: /GOCSPX-[0-9A-Za-z_-]{28}(?![0-9A-Za-z_-])/y },
  { family: 'google-oauth', anchors: ['ya29.'], re: /ya29\.[0-9A-Za-z_-]{30,2048}(?![0-9A-Za-z_-])/y },
  { family: 'google-oauth', anchors: ['1//0'], re: /1\/\/0[0-9A-Za-z_-]{40,512}(?![0-9A-Za-z_-])/y, check: hasDigit },
  { family: 'azure', anchors: ['Q~'], left: { cls: /[A-Za-z0-9_~.]/, min: 4, max: 4 }, re: /[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/y },
  // --- formats ---
  {
    family: 'jwt',
    anchors: ['eyJ'],
    re: /eyJ[A-Za-z0-9_-]{8,4096}\.ey[A-Za-z0-9_-]{8,8192}\.(?:[A-Za-z0-9_-]{8,4096}={0,2})?/y,
    priority: PRIORITY.jwt,
  },
  {
    // A base64-encoded PEM private key (Kubernetes secrets, CI variables): decodes to `-----BEGIN … PRIVATE KEY`.
    family: 'private-key',
    anchors: ['LS0tLS1CRUdJTi'],
    re: /LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,40000}={0,2}/y,
    check: (s) => /PRIVATE KEY/.test(Buffer.from(s.slice(0, 120), 'base64').toString('latin1')),
    priority: PRIORITY.privateKey,
    noPlaceholderTest: true,
  },
  { family: 'private-key', anchors: ['AGE-SECRET-KEY-1'], re: /AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}(?![A-Za-z0-9])/y, priority: PRIORITY.privateKey },
]

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

/**
 * One alternation over many literals, factored as a trie (`s(?:k(?:-(?:ant-|proj-)|_live_)|…)`): the engine tries
 * only the branches that share the text's next character, and longer literals win because a node's children are
 * an optional group tried before the node ends. A flat alternation of ~150 literals costs far more per character.
 */
export function trieSource(words: string[]): string {
  type Node = { end: boolean; kids: Map<string, Node> }
  const root: Node = { end: false, kids: new Map() }
  for (const w of words) {
    let n = root
    for (const ch of w) {
      let k = n.kids.get(ch)
      if (!k) {
        k = { end: false, kids: new Map() }
        n.kids.set(ch, k)
      }
      n = k
    }
    n.end = true
  }
  const emit = (n: Node): string => {
    const alts = [...n.kids].map(([ch, k]) => escapeRe(ch) + emit(k))
    if (alts.length === 0) return ''
    const group = alts.length === 1 ? alts[0] : `(?:${alts.join('|')})`
    if (!n.end) return group
    return alts.length === 1 && n.kids.size === 1 ? `(?:${group})?` : `${alts.length === 1 ? `(?:${group})` : group}?`
  }
  return emit(root)
}

/** Anchor → rules, and one alternation over every anchor (longest first so `sk-ant-` is reported, not `sk-`). */
const BY_ANCHOR = new Map<string, TokenRule[]>()
for (const rule of RULES) {
  for (const a of rule.anchors) {
    const list = BY_ANCHOR.get(a) ?? []
    list.push(rule)
    BY_ANCHOR.set(a, list)
  }
}
const ANCHORS = [...BY_ANCHOR.keys()].sort((a, b) => b.length - a.length)
/**
 * Two-character anchors (`SK`, `Q~`) are searched with indexOf, not in the alternation: a text made of them would
 * otherwise cost one RegExp match object every two characters.
 */
const SHORT_ANCHORS = ANCHORS.filter((a) => a.length <= 2)
const ANCHOR_RE = new RegExp(trieSource(ANCHORS.filter((a) => a.length > 2)), 'g')
/** For each anchor the alternation can report: itself and every shorter anchor it starts with, longest first. */
const CHAIN = new Map<string, TokenRule[]>(ANCHORS.map((a) => [a, ANCHORS.filter((b) => a.startsWith(b)).flatMap((b) => BY_ANCHOR.get(b)!)]))

/** Whether a token may start at `start`: not glued to a preceding token character (an escape letter is fine). */
function leftBoundaryOk(text: string, start: number, kind: TokenRule['boundary']): boolean {
  if (start === 0 || kind === 'none') return true
  const c = text.charCodeAt(start - 1)
  if (kind === 'digit') return !(c >= 48 && c <= 57)
  if (!isTokenChar(c)) return true
  return (c === 110 || c === 114 || c === 116) && isEscapeLetter(text, start - 1)
}

/** `[A-Za-z0-9_-]` by char code. */
function isTokenChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45
}

/** Runs a rule at `start`; returns the secret's span or null. */
function tryRule(text: string, rule: TokenRule, start: number, mask: string): Span | null {
  rule.re.lastIndex = start
  const m = rule.re.exec(text)
  if (!m) return null
  const g = rule.group ?? 0
  const secret = m[g]
  if (!secret) return null
  if (rule.check && !rule.check(secret)) return null
  if (!rule.noPlaceholderTest && isTokenPlaceholder(secret, mask)) return null
  const offset = g === 0 ? 0 : m[0].indexOf(secret)
  const s = m.index + offset
  return { start: s, end: s + secret.length, family: rule.family, priority: rule.priority ?? PRIORITY.provider }
}

/** The first rule of `anchor`'s chain that matches at `at`, or null. */
function tryAnchor(text: string, at: number, anchor: string, mask: string): Span | null {
  // The usual left boundary is the same for every rule at this spot: test it once.
  const tokenBoundary = leftBoundaryOk(text, at, 'token')
  for (const rule of CHAIN.get(anchor)!) {
    let start = at
    if (rule.left) {
      let k = 0
      while (k < rule.left.max + 1 && at - k - 1 >= 0 && rule.left.cls.test(text[at - k - 1])) k++
      if (k < rule.left.min || k > rule.left.max) continue
      start = at - k
      if (!leftBoundaryOk(text, start, rule.boundary)) continue
    } else if ((rule.boundary ?? 'token') === 'token') {
      if (!tokenBoundary) continue
    } else if (!leftBoundaryOk(text, start, rule.boundary)) continue
    const found = tryRule(text, rule, start, mask)
    if (found) return found
  }
  return null
}

/** All provider/format token spans in `text`. */
export function scanTokens(text: string, mask: string, out: Span[]): void {
  ANCHOR_RE.lastIndex = 0
  let m: RegExpExecArray | null
  // Candidates at one spot share anchors (`sk-` rules); try the longest anchor's rules, then shorter ones.
  while ((m = ANCHOR_RE.exec(text)) !== null) {
    const at = m.index
    const found = tryAnchor(text, at, m[0], mask)
    if (found) {
      out.push(found)
      ANCHOR_RE.lastIndex = Math.max(at + 1, found.end)
    } else {
      ANCHOR_RE.lastIndex = at + 1
    }
  }
  for (const anchor of SHORT_ANCHORS) {
    for (let at = text.indexOf(anchor); at !== -1; ) {
      const found = tryAnchor(text, at, anchor, mask)
      if (found) out.push(found)
      at = text.indexOf(anchor, found ? Math.max(at + 1, found.end) : at + 1)
    }
  }
  scanDiscordBot(text, mask, out)
  pairAwsSecrets(text, mask, out)
  scanPrivateKeyBlocks(text, mask, out)
}

const DISCORD_WORD = /discord/i
const DISCORD_BOT_RE = /(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/g

/** Discord bot tokens have no fixed prefix, so (like gitleaks) the rule only runs when the text mentions Discord. */
function scanDiscordBot(text: string, mask: string, out: Span[]): void {
  if (!DISCORD_WORD.test(text)) return
  DISCORD_BOT_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = DISCORD_BOT_RE.exec(text)) !== null) {
    const s = m[0]
    if (!hasDigit(s.slice(0, 26)) || shannon(s) < 4 || isTokenPlaceholder(s, mask)) continue
    out.push({ start: m.index, end: m.index + s.length, family: 'discord', priority: PRIORITY.provider })
  }
}

const AWS_SECRET_RE = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g

/**
 * An AWS secret access key has no prefix; trufflehog finds it next to its key id. Any 40-character base64 run
 * with upper, lower and digits within a few hundred characters of an access key id is taken as its secret
 * (`aws configure` transcripts, credentials CSVs). Git SHAs (lowercase hex) never qualify.
 */
function pairAwsSecrets(text: string, mask: string, out: Span[]): void {
  const ids = out.filter((s) => s.family === 'aws')
  for (const id of ids) {
    const from = Math.max(0, id.start - 300)
    const to = Math.min(text.length, id.end + 400)
    AWS_SECRET_RE.lastIndex = from
    let m: RegExpExecArray | null
    while ((m = AWS_SECRET_RE.exec(text)) !== null && m.index < to) {
      const s = m[0]
      if (!/[a-z]/.test(s) || !/[A-Z]/.test(s) || !/[0-9]/.test(s) || shannon(s) < 4 || isTokenPlaceholder(s, mask)) continue
      out.push({ start: m.index, end: m.index + 40, family: 'aws', priority: PRIORITY.provider })
    }
  }
}
