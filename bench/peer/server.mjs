// The peer of the records benchmark: PostGraphile 5 (amber preset) over the bench database's
// `public` schema, on Node's own HTTP server, started by bench/peer.py.
//
// Environment:
//   PEER_DATABASE_URL  the bench database, reached as its owner (introspection and queries)
//   PEER_HOST, PEER_PORT  where to listen
//   PEER_POOL_MAX      connections in the pool (the gateway's pool size)
//   PEER_ROLE, PEER_WORKSPACE_ID  when set, each request runs in a transaction that first sets
//                      `role` and `app.workspace_id` (PostGraphile's pgSettings), so PostgreSQL's
//                      row-level security applies as it does to the gateway; unset, queries run
//                      as the login role with no transaction and no setting.
// GET /healthz answers 200 once the schema is built; GET /statements answers the SQL statements
// sent since the last GET /statements (at most the last 100; the bench counts one request's);
// /graphql is PostGraphile's endpoint.

import { createServer } from "node:http";
import pg from "pg";
import { postgraphile } from "postgraphile";
import { makePgService } from "postgraphile/adaptors/pg";
import { grafserv } from "postgraphile/grafserv/node";
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";

const env = process.env;
const role = env.PEER_ROLE || null;
const settings = role ? { role, "app.workspace_id": env.PEER_WORKSPACE_ID } : null;

// Our own pool (the one PostGraphile would make, with the size asked for) whose connections
// note the text of each statement they send.
const pool = new pg.Pool({
  connectionString: env.PEER_DATABASE_URL,
  max: Number(env.PEER_POOL_MAX || 10),
});
let sent = [];
pool.on("connect", (conn) => {
  const query = conn.query.bind(conn);
  conn.query = (first, ...rest) => {
    sent.push(typeof first === "string" ? first : first.text);
    if (sent.length > 100) sent.shift();
    return query(first, ...rest);
  };
});

const preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [
    makePgService({
      pool,
      schemas: ["public"],
      ...(settings ? { pgSettings: () => settings } : {}),
    }),
  ],
  grafserv: { graphqlPath: "/graphql", graphiql: false, watch: false, websockets: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const handler = serv.createHandler();
let ready = false;

const reply = (res, status, value) => {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
};

const server = createServer((req, res) => {
  if (req.url === "/healthz") {
    reply(res, ready ? 200 : 503, { status: ready ? "ok" : "starting" });
  } else if (req.url === "/statements") {
    reply(res, 200, { statements: sent });
    sent = [];
  } else {
    handler(req, res);
  }
});

await pgl.getSchema();
ready = true;
server.listen(Number(env.PEER_PORT), env.PEER_HOST || "127.0.0.1");

const stop = async () => {
  server.close();
  await pgl.release();
  await pool.end();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
