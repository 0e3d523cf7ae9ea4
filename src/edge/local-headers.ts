import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/**
 * The first start's headers, for the developer on this machine only. One rule for every page that
 * offers them (GraphiQL, the REST reference at /api/docs): see docs/graphql.md ("GraphiQL").
 */

/** Written next to the embedded database at first start. */
export const LOCAL_HEADERS_FILE = 'graphiql-headers.json';

const localHeadersSchema = z.object({
  'project-id': z.guid(),
  Authorization: z.string().regex(/^Bearer \S+$/),
});
export type LocalHeaders = z.infer<typeof localHeadersSchema>;

/**
 * First start of an embedded (PGlite) install: keeps the demo headers the banner printed, readable by
 * this user only (0600). The directory already holds the whole database, so the file exposes nothing
 * its reader could not read anyway.
 */
export async function saveLocalHeaders(dataDir: string, projectUuid: string, token: string): Promise<void> {
  const headers: LocalHeaders = { 'project-id': projectUuid, Authorization: `Bearer ${token}` };
  const file = path.join(dataDir, LOCAL_HEADERS_FILE);
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${JSON.stringify(headers, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600); // `mode` applies only when the file is created
}

async function readLocalHeaders(dataDir: string): Promise<LocalHeaders | undefined> {
  try {
    const parsed = localHeadersSchema.safeParse(JSON.parse(await readFile(path.join(dataDir, LOCAL_HEADERS_FILE), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // no file (PostgreSQL install, demo seed off, deleted) or unreadable: placeholders
  }
}

/** What the rule reads of a request: the socket's peer address and the headers. */
export interface PageRequest {
  socket: { remoteAddress?: string };
  headers: IncomingHttpHeaders;
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

function isLoopbackAddress(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}

/**
 * A browser on this machine opening the page itself. Each condition closes a way for someone else to
 * get the page: a peer on the network (socket address), a reverse proxy on this host (forwarding
 * headers), a DNS-rebound name pointing at 127.0.0.1 (Host), a script on another site reading the
 * page through CORS (Origin, Sec-Fetch-Site).
 */
export function isLocalBrowserRequest(req: PageRequest): boolean {
  if (!isLoopbackAddress(req.socket.remoteAddress)) return false;
  const h = req.headers;
  if (h.forwarded !== undefined || h['x-forwarded-for'] !== undefined || h['x-forwarded-host'] !== undefined || h['x-real-ip'] !== undefined) return false;
  const host = h.host ?? '';
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return false;
  }
  if (!LOOPBACK_HOSTNAMES.has(hostname)) return false;
  if (h.origin !== undefined && h.origin !== `http://${host}`) return false;
  const site = h['sec-fetch-site'];
  return site === undefined || site === 'none' || site === 'same-origin';
}

export interface LocalHeadersSettings {
  /** Where an embedded install keeps its data (and the first start's headers). */
  DATA_DIR: string;
  /** Set = PostgreSQL install: the first start's headers are never offered. */
  DATABASE_URL?: string;
}

/**
 * The first start's real headers, when this request may have them: a local browser on an embedded
 * install that kept them. Undefined for everyone else (the page then shows placeholders).
 */
export const localFirstStartHeaders = async (settings: LocalHeadersSettings, req: PageRequest): Promise<LocalHeaders | undefined> =>
  settings.DATABASE_URL === undefined && isLocalBrowserRequest(req) ? readLocalHeaders(settings.DATA_DIR) : undefined;
