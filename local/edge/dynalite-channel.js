// dynalite's requests from the local Lambda containers over a MessagePort instead of a loopback HTTP connection (plain
// JS: dynalite-worker.js loads it on dynalite's thread). The containers are threads of the same process: a DynamoDB
// call over loopback HTTP cost about a third more CPU (measured alone: 520-560 µs a call over HTTP, 370-380 over the
// port, client and dynalite together), spent writing, parsing and reading HTTP on both threads and in the kernel. The
// request still goes through the SDK (serialized, signed) and through dynalite's own handler unchanged: each message
// becomes a request object with the method, path, headers (lower case, as Node's parser gives them) and body, and
// dynalite's answer (status, headers, body) goes back as it would have been written. Wire side: dynamo-channel.ts.

const { EventEmitter } = require('node:events');

/**
 * What dynalite's handler reads of a request: method, url, headers, then its body as 'data' and 'end'. The worker's
 * admission queue may hold a request before dynalite's handler sees it, so the body is handed over once the handler
 * listens for its end (after the rest of that synchronous call, in which it adds its 'data' listener too).
 */
class ChannelRequest extends EventEmitter {
  constructor(message) {
    super();
    this.method = message.method;
    this.url = message.url;
    this.headers = message.headers;
    const body = message.body;
    const listening = (event) => {
      if (event !== 'end') return;
      this.off('newListener', listening);
      queueMicrotask(() => {
        if (body) this.emit('data', Buffer.from(body, 'utf8'));
        this.emit('end');
      });
    };
    this.on('newListener', listening);
  }
}

/** Node's server sends a `date` header on every answer; the same text, made once a second. */
let dateSecond = -1;
let dateText = '';
function httpDate() {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/** What dynalite's handler writes of an answer: a status, headers, one end(body). Emits 'finish' once answered. */
class ChannelResponse extends EventEmitter {
  constructor(port, id) {
    super();
    this.port = port;
    this.id = id;
    this.statusCode = 200;
    this.headers = { date: httpDate() };
    this.headersSent = false;
    this.finished = false;
  }

  setHeader(name, value) {
    this.headers[String(name).toLowerCase()] = String(value);
    return this;
  }

  getHeader(name) {
    return this.headers[String(name).toLowerCase()];
  }

  end(body) {
    if (this.finished) return this;
    this.headersSent = true;
    this.finished = true;
    const text = body === undefined || body === null ? '' : typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
    this.port.postMessage({ id: this.id, status: this.statusCode, headers: this.headers, body: text });
    this.emit('finish');
    return this;
  }
}

/** Serves `port`'s requests with `onRequest(req, res)`, the listener the worker's HTTP server has. */
function serveChannel(port, onRequest) {
  port.on('message', (message) => {
    onRequest(new ChannelRequest(message), new ChannelResponse(port, message.id));
  });
}

module.exports = { serveChannel };
