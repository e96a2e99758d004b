// @ts-check
// askbridge needs Node 20.19 or newer (package.json's engines). On an older Node it would fail deep
// inside, on whichever newer API it reached first (`start` on zlib's crc32 with a SyntaxError, `watch`
// on util's styleText), with a stack. Every entry (bin/askbridge.mjs, and scripts/build.mjs, which
// `npm start` and `npm install` run first) calls this before it loads anything else, so a person
// reads one line instead. This file must import nothing and use nothing an old Node lacks.

export const MINIMUM_NODE = '20.19';

/** Exits 1 with one line on stderr when this Node is older than MINIMUM_NODE. */
export function requireSupportedNode() {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const [needMajor = 0, needMinor = 0] = MINIMUM_NODE.split('.').map(Number);
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return;
  process.stderr.write(`askbridge needs Node ${MINIMUM_NODE} or newer; this is ${process.versions.node}\n`);
  process.exit(1);
}
