// SPDX-License-Identifier: GPL-3.0-or-later
// The Node.js twin of Prosponsive's `resolve` route (the baseline;
// the Electron product's server is Node): HTTPS with the same certificate,
// the same bearer token (constant-time comparison), the same Host and
// Origin checks, the same 1 MiB cap and JSON checks, and the same
// idempotent resolve on SQLite with the same durability (WAL +
// synchronous=FULL, BEGIN IMMEDIATE for the write).
//
//   node server.js --data-dir DIR --port N --token TOKEN [--db FILE]
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const https = require('https');
const path = require('path');
const Database = require('better-sqlite3');

function arg(name, fallback) {
  const i = process.argv.indexOf('--' + name);
  return i > 0 ? process.argv[i + 1] : fallback;
}

const dataDir = arg('data-dir');
const port = Number(arg('port', '3199'));
const token = Buffer.from(arg('token'), 'utf8');
const dbPath = arg('db', path.join(dataDir, 'anchor.db'));
const MAX_BODY = 1024 * 1024;

const db = new Database(dbPath);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');
db.exec(`CREATE TABLE IF NOT EXISTS conversations (
  id TEXT PRIMARY KEY, slug TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`);
const lookup = db.prepare('SELECT id FROM conversations WHERE slug = ?');
const insert = db.prepare('INSERT INTO conversations (id, slug, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
const create = db.transaction((slug) => {
  const row = lookup.get(slug);
  if (row) return row.id;
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  insert.run(id, slug, slug, now, now);
  return id;
});

const hosts = new Set(['localhost', '127.0.0.1', '[::1]', 'host.containers.internal',
  'host.docker.internal'].map((h) => `${h}:${port}`));

function send(res, status, object, close) {
  const body = JSON.stringify(object);
  const headers = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) };
  if (close) headers.Connection = 'close';
  res.writeHead(status, headers);
  res.end(body);
}

function fail(res, status, code, error, close) {
  send(res, status, { success: false, error, code }, close);
}

function tokenOk(header) {
  if (typeof header !== 'string') return false;
  const m = /^[ \t]*Bearer[ \t]+(.*?)[ \t]*$/i.exec(header);
  if (!m) return false;
  const given = Buffer.from(m[1], 'utf8');
  // Constant time over the expected length, as prs-api-token does
  const padded = Buffer.alloc(token.length);
  given.copy(padded, 0, 0, Math.min(given.length, token.length));
  return crypto.timingSafeEqual(padded, token) && given.length === token.length;
}

const server = https.createServer({
  key: fs.readFileSync(path.join(dataDir, 'tls-key.pem')),
  cert: fs.readFileSync(path.join(dataDir, 'tls-cert.pem')),
  ALPNProtocols: ['http/1.1'],
}, (req, res) => {
  const host = (req.headers.host || '').toLowerCase();
  if (!hosts.has(host)) return fail(res, 403, 'forbidden-host', 'The Host header does not name this computer.', true);
  if (req.headers.origin !== undefined) return fail(res, 403, 'forbidden-origin', 'Requests from this origin are not allowed.', true);
  const url = req.url.split('?')[0];
  if (url === '/api/health' && req.method === 'GET') return send(res, 200, { status: 'ok', version: 'anchor' });
  if (!tokenOk(req.headers.authorization)) return fail(res, 401, 'unauthorized', 'Authentication required.', true);
  if (Number(req.headers['content-length'] || 0) > MAX_BODY) return fail(res, 413, 'body-too-large', 'The request body is larger than 1 MiB.', true);
  if (url !== '/api/conversations/resolve' || req.method !== 'POST') return fail(res, 404, 'not-found', 'No such endpoint.');
  if (!/^application\/json\b/i.test(req.headers['content-type'] || '')) return fail(res, 415, 'unsupported-media-type', 'The body must be JSON.');

  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY) { req.destroy(); return; }
    chunks.push(chunk);
  });
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
    } catch (e) {
      return fail(res, 400, 'invalid-json', 'The body is not valid JSON.');
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return fail(res, 400, 'invalid-json', 'The body must be a JSON object.');
    if (typeof body.slug !== 'string') return fail(res, 400, 'invalid-field', 'The field “slug” must be a string.');
    const slug = body.slug.trim();
    if (slug === '') return fail(res, 400, 'invalid-field', 'The field “slug” must not be empty.');
    if ([...slug].length > 200) return fail(res, 400, 'invalid-field', 'The field “slug” must be at most 200 characters.');
    if (slug.startsWith('slug:')) return fail(res, 400, 'invalid-field', 'The field “slug” must not start with “slug:”.');
    let id;
    try {
      const row = lookup.get(slug);   // most calls name a conversation that exists
      id = row ? row.id : create.immediate(slug);
    } catch (e) {
      return fail(res, 500, 'internal-error', 'The request could not be completed.');
    }
    send(res, 200, { success: true, conversationId: id, slug });
  });
});

server.keepAliveTimeout = 10000;
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`anchor listening on https://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => { server.close(); db.close(); process.exit(0); });
