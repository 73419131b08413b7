// The boardgame.io 0.50 server of bench/peers.py: Koa + socket.io, its Lobby API, the simplified UNO, the
// default in-memory storage. Bound to 127.0.0.1 only (boardgame.io's own run() listens on every address).
//
// Usage: node server.js --port PORT
// Prints "boardgame.io server ready on PORT" once it listens; stops on SIGTERM or SIGINT.
'use strict';

// Quiet, and as deployed: outside production boardgame.io logs every move (and its logger is chosen on load).
process.env.NODE_ENV = process.env.BGIO_ENV || 'production';

const { Server } = require('boardgame.io/server');
const { UnoLite } = require('./uno');

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

const HOST = '127.0.0.1';
const port = Number(option('--port', '0'));

// Origins: the load clients are Node processes (no browser origin); the Lobby API is called over HTTP.
const server = Server({ games: [UnoLite], origins: [/127\.0\.0\.1:\d+/] });

// koa-socket-2 made app.listen(port, cb) the HTTP server's listen: pass the host through it.
const listen = server.app.listen;
server.app.listen = (listenPort, callback) => listen.call(server.app, listenPort, HOST, callback);

server.run({ port }).then(({ appServer, apiServer }) => {
  console.log(`boardgame.io server ready on ${appServer.address().port}`);
  const stop = () => {
    server.kill({ appServer, apiServer });
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
});
