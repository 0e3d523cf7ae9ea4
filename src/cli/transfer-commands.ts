import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { Command, type Option } from 'commander';
import { validationFailed } from '../errors.ts';
import { assetStorage } from '../assets/storage.ts';
import { archivePathFor, openArchiveReader, openArchiveWriter, storeAssetFile, type ArchiveWriter } from '../project-model/asset-archive.ts';
import { remoteFile, remoteRecords, type RemoteSource } from '../project-model/remote.ts';
import { exportProject } from '../project-model/export.ts';
import { importProject } from '../project-model/import.ts';
import { parseRecord, type ExportRecord } from '../project-model/records.ts';
import type { CliEnv } from './env.ts';
import { fields, type CommandOutput } from './output.ts';
import { progressBar } from './progress.ts';
import { projectCtx } from './schema-commands.ts';

type Choose = (c: { json: boolean; run(env: CliEnv): Promise<CommandOutput> }) => void;

/** Writes a line, waiting while the stream's buffer is full (memory stays bounded on a slow disk). */
async function writeLine(out: Writable, line: string): Promise<void> {
  if (!out.write(`${line}\n`)) await once(out, 'drain');
}

async function closeStream(out: Writable): Promise<void> {
  out.end();
  await once(out, 'finish');
}

/** The records of an NDJSON export file, one line at a time. */
export async function* readExportFile(path: string): AsyncGenerator<ExportRecord> {
  const input = createReadStream(path, { encoding: 'utf8' });
  const opened = once(input, 'open').catch((err: Error) => {
    throw validationFailed({ file: [`Cannot read ${path}: ${err.message}`] });
  });
  await opened;
  let n = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    n++;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw validationFailed({ [`line ${n}`]: [`Not JSON: ${(err as Error).message}`] });
    }
    yield parseRecord(value, n);
  }
}

const summary = (verb: string, c: { entries: number; versions: number; assets: number }, extra: Array<[string, string]> = []) =>
  [verb, fields([['entries', String(c.entries)], ['versions', String(c.versions)], ['assets', String(c.assets)], ...extra])].join('\n');

/** `cms export` and `cms import`: a whole project as NDJSON (docs/foundation.md, "Export and import"). */
export function transferCommands(choose: Choose, projectOption: () => Option, jsonOption: () => Option): Command[] {
  const exportCommand = new Command('export')
    .description('write a whole project to an NDJSON file: the model, every entry in every locale with all its versions, assets')
    .addOption(projectOption())
    .requiredOption('--out <file>', 'the NDJSON file to write (e.g. project.ndjson)')
    .addOption(jsonOption())
    .action((o: { project: string; out: string; json?: boolean }) =>
      choose({
        json: !!o.json,
        run: async (env) => {
          const ctx = await projectCtx(env, o.project);
          const out = createWriteStream(o.out);
          await once(out, 'open').catch((err: Error) => {
            throw validationFailed({ out: [`Cannot write ${o.out}: ${err.message}`] });
          });
          const bar = progressBar(env.progress, 'Exporting entries');
          const tarPath = archivePathFor(o.out);
          let archive: ArchiveWriter | undefined;
          let total = 0;
          let done = 0;
          const counts = await exportProject(ctx, {
            async record(r) {
              if (r.type === 'project') total = r.counts.entries;
              await writeLine(out, JSON.stringify(r));
              if (r.type === 'entry') bar.update(++done, total);
            },
            async assetFile(asset, storageKey) {
              archive ??= await openArchiveWriter(ctx.services, tarPath);
              await archive.add(asset, storageKey);
            },
          }).finally(() => bar.finish());
          await closeStream(out);
          await archive?.close();
          const missing = archive?.missing ?? [];
          const extra: Array<[string, string]> = archive ? [['asset files', tarPath]] : [];
          if (missing.length) extra.push(['missing files', `${missing.length} (not in the asset store: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''})`]);
          return {
            json: { file: o.out, assets_file: archive ? tarPath : null, ...counts, missing_asset_files: missing },
            human: summary(`Exported to ${o.out}`, counts, extra),
          };
        },
      }),
    );

  const importCommand = new Command('import')
    .description('load an export file, or a whole project from a running server (--from), into an empty project, in one transaction')
    .argument('[file]', 'the NDJSON file "cms export" wrote (its assets tar beside it)')
    .addOption(projectOption())
    .option('--from <base-url>', 'pull from a running server over its REST API instead of a file (e.g. https://cms.example.com)')
    .option('--token <token>', 'with --from: an API token of the source project (read; admin also carries webhooks)')
    .option('--from-project <uuid>', 'with --from: the source project\'s UUID')
    .option('--new-ids', 'give every entry, version and asset a new uuid (references rewritten): copies a project within the same database')
    .option('--skip-missing-files', 'with --from: import an asset whose file the source does not have without it (listed as assets_skipped) instead of failing')
    .addOption(jsonOption())
    .action((file: string | undefined, o: { project: string; from?: string; token?: string; fromProject?: string; skipMissingFiles?: boolean; newIds?: boolean; json?: boolean }) => {
      choose({
        json: !!o.json,
        run: async (env) => {
          if (o.from ? file !== undefined : file === undefined) throw validationFailed({ file: ['Give either an export file or --from <base-url>.'] });
          if (o.from && (!o.token || !o.fromProject)) throw validationFailed({ from: ['--from needs --token and --from-project.'] });
          if (o.skipMissingFiles && !o.from) throw validationFailed({ 'skip-missing-files': ['--skip-missing-files goes with --from (an export lists the files it lacked itself).'] });
          const ctx = await projectCtx(env, o.project);
          const bar = progressBar(env.progress, 'Importing entries');
          const progress = (d: { entries: number }, t: { entries: number }) => bar.update(d.entries, Math.max(t.entries, d.entries));
          const stored: Array<() => Promise<void>> = [];
          if (o.from) {
            const src: RemoteSource = { baseUrl: o.from, token: o.token!, projectUuid: o.fromProject!.toLowerCase() };
            try {
              const { assets_skipped: skipped, ...counts } = await importProject(ctx, remoteRecords(src), {
                progress,
                newIds: o.newIds,
                skipMissingFiles: o.skipMissingFiles,
                assetFile: async (asset, key) => {
                  if (!(await storeAssetFile(ctx.services, asset, key, await remoteFile(src, asset.uuid)))) return false;
                  stored.push(() => assetStorage(ctx.services).delete(key));
                  return true;
                },
              });
              const extra: Array<[string, string]> = skipped.length ? [['skipped files', `${skipped.length} (the source has none: ${skipped.slice(0, 5).map((a) => `${a.uuid} ${a.filename}`).join(', ')}${skipped.length > 5 ? ', …' : ''})`]] : [];
              return {
                json: o.skipMissingFiles ? { ...counts, assets_skipped: skipped } : counts,
                human: summary(`Imported ${o.from} project ${src.projectUuid} into project ${o.project}`, counts, extra),
              };
            } catch (err) {
              for (const undo of stored) await undo().catch(() => {});
              throw err;
            } finally {
              bar.finish();
            }
          }
          const tarPath = archivePathFor(file!);
          const archive = existsSync(tarPath) ? openArchiveReader(ctx.services, tarPath) : undefined;
          try {
            const { assets_skipped: _none, ...counts } = await importProject(ctx, readExportFile(file!), {
              progress,
              newIds: o.newIds,
              assetFile: archive
                ? (asset, key) => archive.restore(asset, key)
                : () => Promise.reject(validationFailed({ assets: [`The export has asset files but ${tarPath} is not beside it.`] })),
            });
            return { json: counts, human: summary(`Imported into project ${o.project}`, counts) };
          } catch (err) {
            await archive?.discard();
            throw err;
          } finally {
            bar.finish();
            await archive?.close();
          }
        },
      });
    });
  return [exportCommand, importCommand];
}
