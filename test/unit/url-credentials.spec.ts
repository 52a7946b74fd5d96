/**
 * Credentials inside URLs (userinfo, credential and signing query parameters, secret-shaped values) are found by
 * the redaction principles, and a URL's label masks exactly those values, every other byte as written.
 */
import { describe, expect, it } from 'vitest'
import { hasUrlCredentials, urlCredentials, urlLabel } from '../../src/redact/url-credentials.js'

const M = '[REDACTED]'

describe('credentials in URLs', () => {
  it('finds userinfo, credential-named and signing parameters, and secret-shaped values under any name', () => {
    expect(urlCredentials('https://a.example/x?token=abc&page=2')).toEqual({ userinfo: false, params: ['token'] })
    expect(urlCredentials('https://ann:pw@a.example/x')).toEqual({ userinfo: true, params: [] })
    expect(urlCredentials('https://a.example/x?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=ab12&X-Amz-Date=1').params).toEqual(['X-Amz-Credential', 'X-Amz-Signature'])
    expect(urlCredentials('https://a.example/x?sig=zz&access_token=t&client_secret=s&api_key=k').params).toEqual(['sig', 'access_token', 'client_secret', 'api_key'])
    expect(urlCredentials('https://a.example/x?key=ghp_0123456789abcdefABCDEF0123456789abcd').params).toEqual(['key'])
  })

  it('leaves look-alikes alone: words that contain a keyword, empty values, a bare key with a plain value', () => {
    for (const url of [
      'https://a.example/search?q=token&tokenizer=bpe',
      'https://a.example/x?keyword=secret&monkey=1&page=2',
      'https://a.example/x?key=sort_order',
      'https://a.example/x?token=',
      'https://a.example/docs/password-reset',
      'not a url',
    ])
      expect(hasUrlCredentials(url), url).toBe(false)
  })

  it('labels a URL with those values masked and every other byte kept', () => {
    expect(urlLabel('https://ann:pw@a.example/x?page=2&token=abc&b=%20#frag', M)).toBe(`https://a.example/x?page=2&token=${M}&b=%20#frag`)
    expect(urlLabel('https://a.example/x?a=1&a=2', M)).toBe('https://a.example/x?a=1&a=2')
  })
})
