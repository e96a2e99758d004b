// pino-roll ships no types: the part of its options askbridge uses (see its README).
declare module 'pino-roll' {
  import type { DestinationStream } from 'pino';
  export type PinoRollOptions = {
    file: string;
    extension?: string;
    size?: string | number;
    frequency?: string | number;
    limit?: { count?: number; removeOtherLogFiles?: boolean };
    symlink?: boolean;
    mkdir?: boolean;
    mode?: number;
    /** Write each line before the call returns (sonic-boom's sync). */
    sync?: boolean;
  };
  export default function roll(options: PinoRollOptions): Promise<DestinationStream>;
}
