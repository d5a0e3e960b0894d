/**
 * The table of migration `0025_instance_upstreams`: what each running
 * service instance can serve (instances/instance-heartbeat.ts writes it,
 * instances/live-instances.ts reads it). Times are ISO 8601 UTC strings
 * like the rest of the store.
 */
export interface InstanceTables {
  instance_upstreams: InstanceUpstreamsTable;
}

/** One running instance's row. */
export interface InstanceUpstreamsTable {
  /** Random per start, so two processes never share a row whatever their names. */
  id: string;
  /** How the operator knows it: `PERSONA_INSTANCE_ID`, else `hostname:pid`. */
  instance: string;
  /** When the process started serving. */
  started_at: string;
  /** Its latest heartbeat; a row a few intervals old is a dead instance's. */
  heartbeat_at: string;
  /** JSON array of the names of the upstreams it can serve, sorted. */
  upstreams: string;
}
