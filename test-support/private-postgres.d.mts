import type pg from "pg";

/** A running cluster of {@link startPrivatePostgres}. */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  /** A superuser connection to database `postgres` (replaced after {@link PrivatePostgres.crash}). */
  admin: pg.Client;
  /** Process ID of the postmaster. */
  postmaster: number;
  /** The server binaries' folder. */
  bin: string;
  /** The URL of database `name` on this cluster. */
  databaseUrl(name: string): string;
  /** Kills one backend with SIGKILL (crash recovery follows); resolves once the server answers again. */
  crash(): Promise<void>;
  /** Fast shutdown, waiting 10 s at most. */
  stop(): Promise<void>;
}

/** The newest installed server binaries' folder with `initdb`, or undefined. */
export function postgresServerBinaries(): string | undefined;

/** Connects to `url`, trying `attempts` times 100 ms apart. */
export function connectPostgres(url: string, attempts?: number): Promise<pg.Client>;

/**
 * Starts a cluster of its own in `directory/postgres` (initdb, default
 * settings, trust for `postgres` on 127.0.0.1, a free port).
 *
 * @throws when no server binaries are installed, initdb fails or the server does not answer
 */
export function startPrivatePostgres(directory: string): Promise<PrivatePostgres>;
