// A reason the daemon cannot start that a person can act on (a port in use, a certificate that
// cannot be read): its message is shown as it is, with no stack.
export class DaemonStartError extends Error {}
