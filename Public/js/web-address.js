// Web addresses apps open (nav item links, web-page components, a plugin's uploaded files): https,
// with a whole host name. The server accepts http too; the editor asks for https, since apps do
// not open plain http addresses.

/** What is wrong with a web address, in words, or '' when nothing is. */
export function webAddressProblem(value) {
  const text = String(value ?? '').trim();
  if (!text) return 'enter the web address this opens, like https://example.com';
  let url;
  try { url = new URL(text); } catch { return 'enter a whole web address, like https://example.com'; }
  if (url.protocol === 'http:') return 'use https:// (apps do not open plain http addresses)';
  if (url.protocol !== 'https:') return 'enter a web address that starts with https://';
  if (!url.hostname || !url.hostname.includes('.')) return 'enter a whole web address, like https://example.com';
  return '';
}
