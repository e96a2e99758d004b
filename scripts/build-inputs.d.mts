// The types of build-inputs.mjs, for the TypeScript that imports it (the test harness).
export declare const ROOT: string;
export declare const RECORD_PATH: string;
export declare function digestInputs(): Record<string, string>;
export declare function staleInputs(): string[];
