// The parameters of an import, as POST /imp takes them in its URL and the
// library's importCsv takes them as an object: one parser, one set of
// messages (a bad value is a 400 naming the parameter).
import { durationType } from '../config/value-types.js';
import { parsePartitionBy } from '../storage/partition-by.js';
import { importTableName } from './import-names.js';
import { importError, type Atomicity, type ImportOptions } from './importer.js';

export interface ImportParams {
  readonly json: boolean;
  readonly name: string | null;
  readonly opts: Omit<ImportOptions, 'table' | 'location' | 'schema'>;
}

function param(params: URLSearchParams, name: string): string | null {
  const v = params.get(name);
  return v === null || v === '' ? null : v;
}

/** The /imp parameters (also the library's importCsv options), validated: a bad value is a 400 naming it. */
export function parseImportParams(url: URLSearchParams, analysisLines: number): ImportParams {
  // Before the upload is read: a name that cannot name a table is refused at once.
  const nameParam = param(url, 'name');
  const name = nameParam === null ? null : importTableName(nameParam);
  const atomicityText = param(url, 'atomicity') ?? 'skipCol';
  const atomicity = ({ skipcol: 'skipCol', skiprow: 'skipRow', abort: 'abort' } as Record<string, Atomicity>)[atomicityText.toLowerCase()];
  if (!atomicity) throw importError(`invalid value for parameter atomicity: ${atomicityText} [expected skipCol, skipRow or abort]`);
  const fmt = (param(url, 'fmt') ?? 'tabular').toLowerCase();
  if (fmt !== 'tabular' && fmt !== 'json') throw importError(`invalid value for parameter fmt: ${fmt} [expected tabular or json]`);
  const d = param(url, 'delimiter');
  let delimiter: number | null = null;
  if (d !== null) {
    const text = d === '\\t' || d.toLowerCase() === 'tab' ? '\t' : d;
    if (text.length !== 1 || text.charCodeAt(0) > 127 || /[\r\n"]/.test(text)) throw importError(`invalid value for parameter delimiter: ${JSON.stringify(d)} [expected one ASCII character]`);
    delimiter = text.charCodeAt(0);
  }
  const pb = param(url, 'partitionBy');
  const partitionBy = pb === null ? null : parsePartitionBy(pb) ?? null;
  if (pb !== null && partitionBy === null) throw importError(`invalid value for parameter partitionBy: ${pb} [expected NONE, HOUR, DAY, WEEK, MONTH or YEAR]`);
  const mur = param(url, 'maxUncommittedRows');
  if (mur !== null && (!/^\d+$/.test(mur) || Number(mur) < 1)) throw importError(`invalid value for parameter maxUncommittedRows: ${mur} [expected a positive integer]`);
  const lag = param(url, 'o3MaxLag');
  let o3MaxLag: number | undefined;
  if (lag !== null) {
    // A bare number is microseconds (QuestDB); a duration with a unit (10s, 5m) works too.
    if (/^\d+$/.test(lag)) o3MaxLag = Number(lag);
    else {
      try { o3MaxLag = durationType.parse(lag) * 1000; } catch { throw importError(`invalid value for parameter o3MaxLag: ${lag} [expected microseconds or a duration such as 10s]`); }
    }
  }
  const wrap = (name: string, def: boolean): boolean => {
    const v = param(url, name);
    if (v === null) return def;
    const l = v.toLowerCase();
    if (l === 'true') return true;
    if (l === 'false') return false;
    throw importError(`invalid value for parameter ${name}: ${v} [expected true or false]`);
  };
  return {
    json: fmt === 'json',
    name,
    opts: {
      atomicity, delimiter, partitionBy, timestamp: param(url, 'timestamp'), analysisLines,
      forceHeader: wrap('forceHeader', false), overwrite: wrap('overwrite', false), create: wrap('create', true), skipLev: wrap('skipLev', false),
      maxUncommittedRows: mur === null ? undefined : Number(mur), o3MaxLag,
    },
  };
}


