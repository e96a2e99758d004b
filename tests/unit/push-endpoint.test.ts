// Which Web Push endpoints the daemon sends to (outbound-url.ts): https to a push service browsers
// use, by name, and nothing else; a test's stand-in only at its exact origin.
import { describe, expect, it } from 'vitest';
import { pushEndpointProblem } from '../../src/outbound-url.js';

describe('a push endpoint', () => {
  it.each([
    'https://fcm.googleapis.com/fcm/send/abc:def',
    'https://fcm.googleapis.com/wp/abc',
    'https://updates.push.services.mozilla.com/wpush/v2/abc',
    'https://web.push.apple.com/QGxyz',
    'https://wns2-par02p.notify.windows.com/w/?token=abc',
    'https://FCM.googleapis.com:443/fcm/send/abc',
  ])('is taken at a push service browsers use: %s', (endpoint) => {
    expect(pushEndpointProblem(endpoint)).toBeUndefined();
  });

  it.each([
    ['http://fcm.googleapis.com/fcm/send/abc', /is not https/],
    ['http://127.0.0.1:9/push', /is not https/],
    ['https://127.0.0.1/push', /127\.0\.0\.1 is not a push service/],
    ['https://localhost/push', /localhost is not a push service/],
    ['https://[::1]/push', /is not a push service/],
    ['https://10.0.0.8/push', /is not a push service/],
    ['https://192.168.1.20/push', /is not a push service/],
    ['https://169.254.169.254/latest/meta-data', /is not a push service/],
    ['https://[fe80::1]/push', /is not a push service/],
    ['https://[fd00::1]/push', /is not a push service/],
    ['https://2130706433/push', /is not a push service/],
    ['https://push.apple.com/x', /is not a push service/],
    ['https://notify.windows.com.attacker.example/x', /is not a push service/],
    ['https://fcm.googleapis.com.attacker.example/x', /is not a push service/],
    ['https://attackerfcm.googleapis.com/x', /is not a push service/],
    ['https://fcm.googleapis.com:8443/fcm/send/abc', /names a port/],
    ['https://user:pass@fcm.googleapis.com/fcm/send/abc', /user name or password/],
    ['not a url', /not a URL/],
  ])('is refused elsewhere, with the reason: %s', (endpoint, reason) => {
    expect(pushEndpointProblem(endpoint)).toMatch(reason);
  });

  it("takes a test's stand-in at its exact origin only", () => {
    expect(pushEndpointProblem('http://127.0.0.1:4100/push/phone', 'http://127.0.0.1:4100')).toBeUndefined();
    expect(pushEndpointProblem('http://127.0.0.1:4101/push/phone', 'http://127.0.0.1:4100')).toMatch(/is not https/);
    expect(pushEndpointProblem('http://localhost:4100/push/phone', 'http://127.0.0.1:4100')).toMatch(/is not https/);
  });
});
