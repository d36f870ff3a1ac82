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
// GET /healthz answers 200 once the schema is built; /graphql is PostGraphile's endpoint.

import { createServer } from "node:http";
import { postgraphile } from "postgraphile";
import { makePgService } from "postgraphile/adaptors/pg";
import { grafserv } from "postgraphile/grafserv/node";
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";

const env = process.env;
const role = env.PEER_ROLE || null;
const settings = role ? { role, "app.workspace_id": env.PEER_WORKSPACE_ID } : null;

const preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [
    makePgService({
      connectionString: env.PEER_DATABASE_URL,
      schemas: ["public"],
      poolConfig: { max: Number(env.PEER_POOL_MAX || 10) },
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

const server = createServer((req, res) => {
  if (req.url === "/healthz") {
    const body = JSON.stringify({ status: ready ? "ok" : "starting" });
    res.writeHead(ready ? 200 : 503, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    });
    res.end(body);
    return;
  }
  handler(req, res);
});

await pgl.getSchema();
ready = true;
server.listen(Number(env.PEER_PORT), env.PEER_HOST || "127.0.0.1");

const stop = async () => {
  server.close();
  await pgl.release();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
