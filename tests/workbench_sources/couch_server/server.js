// A CouchDB-compatible server for the tests: `node server.js PORT`, in memory, on 127.0.0.1.
// The issue names `pouchdb-server`, but pouchdb-server@4.2.0 crashes on Node 20 at the first
// database it creates ("db.info is not a function"); express-pouchdb, the part of pouchdb-server
// that serves the CouchDB HTTP API (databases, documents, Mango _find), works when mounted over
// pouchdb 7.3.1 directly. It has no authentication (setting an admin crashes it the same way).
const express = require("express");
const PouchDB = require("pouchdb").plugin(require("pouchdb-adapter-memory"));

const MemoryPouch = PouchDB.defaults({ adapter: "memory" });
const app = express();
app.use("/", require("express-pouchdb")(MemoryPouch, { inMemoryConfig: true }));
const server = app.listen(Number(process.argv[2]), "127.0.0.1", () => console.log("listening"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
