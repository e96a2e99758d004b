// pgpass (the password file reader of node-postgres' own repository) ships no types: the one call
// askbridge makes. It reads PGPASSFILE, else ~/.pgpass, and answers undefined when there is no line
// for the connection (or the file is readable by others, which libpq refuses too).
declare module 'pgpass' {
  type ConnectionInfo = { host?: string | undefined; port?: number | string | undefined; database?: string | undefined; user?: string | undefined };
  function pgpass(connection: ConnectionInfo, callback: (password: string | undefined) => void): void;
  export default pgpass;
}
