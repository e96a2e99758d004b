// A paired browser's name, as the device list shows it: the browser and the system it runs on, read
// from its User-Agent ("Chrome on Android"). Only for telling devices apart; nothing trusts it.

const BROWSERS: Array<[RegExp, string]> = [
  [/\bEdgA?\//, 'Edge'],
  [/\bOPR\//, 'Opera'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bCriOS\/|Chrom(e|ium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+ (Mobile\/\S+ )?Safari\//, 'Safari'],
];
const SYSTEMS: Array<[RegExp, string]> = [
  [/\bAndroid\b/, 'Android'],
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bLinux\b/, 'Linux'],
];

export function deviceNameOf(userAgent: string | undefined): string {
  const ua = userAgent ?? '';
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua))?.[1] ?? 'A browser';
  const system = SYSTEMS.find(([pattern]) => pattern.test(ua))?.[1];
  return system ? `${browser} on ${system}` : browser;
}
