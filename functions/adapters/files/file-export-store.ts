/**
 * Export files of the embedded default in a folder (the data folder's `exports/`, or a temporary one in memory mode),
 * served by the API at `GET /exports/{file}?token=`: each file has a sidecar with its unguessable token and expiry.
 * A file is written under a temporary name and renamed whole, so a reader never sees part of one; a file written in
 * steps has its parts beside it (`<file>.part<n>`, never served) until it is written from them.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, link as hardLink, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { Instant } from '../../domain/instant';
import type { ExportDownload, ExportStore } from '../../application/ports';

/** The route that serves the files (the API's). */
export const EXPORT_FILE_PATH = '/exports';
/** What a stored file may be named: a job id and an extension, nothing that reaches outside the folder. */
const FILE_NAME = /^job_\d{13}_[0-9a-z]{10}\.(csv|jsonl)$/;

interface Sidecar {
  token: string;
  expiresAt: string;
  contentType: string;
  fileName: string;
}

export class FileExportStore implements ExportStore {
  /** `baseUrl`: the API's address, e.g. "http://127.0.0.1:4000". */
  constructor(private readonly folder: string, private readonly baseUrl: string) {}

  async write(key: string, contentType: string, lines: AsyncIterable<string | Buffer>): Promise<{ bytes: number; sha256: string }> {
    if (!FILE_NAME.test(key)) throw new Error(`export file name ${key} is not a job id and an extension`);
    await mkdir(this.folder, { recursive: true });
    const written = await this.writeWhole(join(this.folder, key), lines);
    await this.writeSidecar(key, (earlier) => ({ ...earlier, contentType }));
    return written;
  }

  private partFile(key: string, part: number): string {
    return join(this.folder, `${key}.part${String(part).padStart(6, '0')}`);
  }

  /**
   * Writes the chunks to `file` under a temporary name, renamed whole once written, with their size and SHA-256 (null:
   * only hashed).
   */
  private async writeWhole(file: string | null, lines: AsyncIterable<string | Buffer>): Promise<{ bytes: number; sha256: string }> {
    // Each writer has a temporary file of its own: a step delivered twice at once (the queue delivers at least once)
    // must not write into, or truncate, the other's file, nor the file the other already renamed into place.
    const partial = file === null ? null : `${file}.${randomBytes(6).toString('hex')}.partial`;
    const out = partial === null ? null : createWriteStream(partial);
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      for await (const chunk of lines) {
        const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
        hash.update(buffer);
        bytes += buffer.length;
        if (out && !out.write(buffer)) await once(out, 'drain');
      }
      if (out) {
        out.end();
        await once(out, 'finish');
      }
    } catch (error) {
      out?.destroy();
      throw error;
    }
    if (file !== null && partial !== null) await rename(partial, file);
    return { bytes, sha256: hash.digest('hex') };
  }

  async writePart(key: string, part: number, lines: AsyncIterable<string>): Promise<{ bytes: number }> {
    if (!FILE_NAME.test(key)) throw new Error(`export file name ${key} is not a job id and an extension`);
    await mkdir(this.folder, { recursive: true });
    const { bytes } = await this.writeWhole(this.partFile(key, part), lines);
    return { bytes };
  }

  async combine(key: string, contentType: string, parts: number): Promise<{ bytes: number; sha256: string }> {
    if (!FILE_NAME.test(key)) throw new Error(`export file name ${key} is not a job id and an extension`);
    const partFiles = Array.from({ length: parts }, (_, n) => this.partFile(key, n));
    const whole = await Promise.all(partFiles.map((file) => access(file).then(() => true, () => false)));
    if (!whole.every(Boolean)) {
      // An earlier try wrote the file and removed its parts: answer that file.
      if (await access(join(this.folder, key)).then(() => true, () => false)) return this.writeWhole(null, createReadStream(join(this.folder, key)));
      throw new Error(`export ${key}: part ${whole.indexOf(false)} of ${parts} is missing`);
    }
    const written = await this.write(key, contentType, (async function* concatenated() {
      for (const file of partFiles) yield* createReadStream(file) as AsyncIterable<Buffer>;
    })());
    await Promise.all(partFiles.map((file) => unlink(file).catch(() => undefined)));
    return written;
  }

  async link(key: string, expiresAt: Date, fileName: string): Promise<string> {
    // A link made already (a step delivered twice) keeps its token, so the link a job's result gave stays valid; the
    // later of the two expiries is kept, so neither answer's `expiresAt` comes before the link's.
    const sidecar = await this.writeSidecar(key, (earlier) => {
      if (earlier.contentType === undefined) throw new Error(`export ${key} has no file to link`);
      const latest = earlier.expiresAt && Date.parse(earlier.expiresAt) > expiresAt.getTime() ? earlier.expiresAt : expiresAt.toISOString();
      return { token: earlier.token, expiresAt: latest, contentType: earlier.contentType, fileName };
    });
    const token = await this.tokenOf(key, sidecar.token);
    return `${this.baseUrl}${EXPORT_FILE_PATH}/${key}?token=${token}`;
  }

  /**
   * The file's one token: made once, by whichever writer comes first, in a file of its own created whole and only if
   * absent (a hard link of a finished temporary file fails when the name exists). The sidecar is rewritten whole by
   * each step (read, change, rename), so two deliveries of the last step at once (a restart's redelivery beside the
   * step that ran on) could each keep a token of its own there and the job's result name the one that lost; the token
   * file cannot be overwritten. `earlier`: a token a sidecar of an older version holds, kept as the file's.
   */
  private async tokenOf(key: string, earlier: string | undefined): Promise<string> {
    const tokenFile = join(this.folder, `${key}.token`);
    const kept = await readFile(tokenFile, 'utf8').catch(() => '');
    if (kept) return kept;
    const temporary = `${tokenFile}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, earlier ?? randomBytes(24).toString('base64url'));
    try {
      await hardLink(temporary, tokenFile);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await unlink(temporary).catch(() => undefined);
    }
    return readFile(tokenFile, 'utf8');
  }

  /** Rewrites the file's sidecar from what it held (nothing yet: `{}`), whole, under a temporary name of its own. */
  private async writeSidecar<T extends Partial<Sidecar>>(key: string, next: (earlier: Partial<Sidecar>) => T): Promise<T> {
    const sidecarFile = join(this.folder, `${key}.json`);
    const earlier = await readFile(sidecarFile, 'utf8').then((text) => JSON.parse(text) as Partial<Sidecar>, () => ({}));
    const sidecar = next(earlier);
    const temporary = `${sidecarFile}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, JSON.stringify(sidecar));
    await rename(temporary, sidecarFile);
    return sidecar;
  }

  async open(key: string, token: string, now: Date): Promise<ExportDownload> {
    if (!FILE_NAME.test(key)) return { kind: 'not_found' };
    let sidecar: Sidecar;
    try {
      sidecar = JSON.parse(await readFile(join(this.folder, `${key}.json`), 'utf8')) as Sidecar;
    } catch {
      return { kind: 'not_found' };
    }
    const kept = (await readFile(join(this.folder, `${key}.token`), 'utf8').catch(() => '')) || sidecar.token || '';
    const expected = Buffer.from(kept);
    const given = Buffer.from(token);
    if (!kept || expected.length !== given.length || !timingSafeEqual(expected, given)) return { kind: 'not_found' };
    if (Date.parse(sidecar.expiresAt) <= now.getTime()) return { kind: 'expired', expiresAt: Instant.parse(sidecar.expiresAt, 'expiresAt') };
    const stream = createReadStream(join(this.folder, key), { encoding: 'utf8', highWaterMark: 256 * 1024 });
    return { kind: 'file', contentType: sidecar.contentType, fileName: sidecar.fileName, chunks: stream as AsyncIterable<string> };
  }
}
