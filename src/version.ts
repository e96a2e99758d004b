// The package version, read once from package.json (beside src/ and dist/).
import { readFileSync } from 'node:fs';
import { ownFolders } from './package-root.js';

export const VERSION: string = (JSON.parse(readFileSync(new URL('package.json', ownFolders(import.meta.url).packageRoot), 'utf8')) as { version: string }).version;
