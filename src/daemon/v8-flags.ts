// V8 settings for a process that is about to become the daemon: one that mostly waits. Imported
// first, before the daemon's code is compiled (the bundle's loader imports it before it compiles the
// bundle with its code cache, and V8 takes a cache only under the flags it was made with).
//
// The young generation stays at its first size (1 MiB a half) instead of doubling while the daemon
// loads: that growth is never given back to an idle process (about 6 MB of its resident memory),
// and a daemon's work, a question at a time, fits in it. Under load, objects that live longer are
// promoted a little sooner; `npm run bench` (rows 4a, 4b) measures that.
//
// V8 optimises for size: its memory reducer then compacts the heap of a daemon gone idle within
// seconds of its start, not after a minute (5 MB less resident memory from then on), and a little
// less is held before that. A daemon waits; it is never short of the speed this gives up.
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--semi-space-growth-factor=1');
setFlagsFromString('--optimize-for-size');
