// The parameters of an import, as POST /imp takes them in its URL and the
// library's importCsv takes them as an object: one parser, one set of
// messages (over HTTP, the values QuestDB tolerates are tolerated).
import { durationType } from '../config/value-types.js';
import { parsePartitionBy } from '../storage/partition-by.js';
import { importTableName } from './import-names.js';
import { importError, type Atomicity, type ImportOptions } from './importer.js';

export interface ImportParams {
  readonly json: boolean;
  readonly name: string | null;
  readonly opts: Omit<ImportOptions, 'table' | 'schema'>;
}

function param(params: URLSearchParams, name: string): string | null {
  const v = params.get(name);
  return v === null || v === '' ? null : v;
}

/**
 * The /imp parameters (also the library's importCsv options). Over HTTP they
 * are read as QuestDB reads them: an unknown atomicity is skipCol, a flag is
 * true only when it says true (create false only when it says false), fmt is
 * JSON only when it says json, a delimiter that is not one character is
 * detected instead; a bad partitionBy, maxUncommittedRows or o3MaxLag, and
 * partitionBy without timestamp, are refused at once. `strict` (the library)
 * refuses every bad value instead, naming the parameter.
 */
export function parseImportParams(url: URLSearchParams, analysisLines: number, strict = false): ImportParams {
  // Before the upload is read: a name that cannot name a table is refused at once.
  const nameParam = param(url, 'name');
  const name = nameParam === null ? null : importTableName(nameParam);
  const atomicityText = param(url, 'atomicity') ?? 'skipCol';
  const atomicity = ({ skipcol: 'skipCol', skiprow: 'skipRow', abort: 'abort' } as Record<string, Atomicity>)[
    atomicityText.toLowerCase()
  ];
  if (!atomicity && strict)
    throw importError(`invalid value for parameter atomicity: ${atomicityText} [expected skipCol, skipRow or abort]`);
  const fmt = (param(url, 'fmt') ?? 'tabular').toLowerCase();
  if (strict && fmt !== 'tabular' && fmt !== 'json')
    throw importError(`invalid value for parameter fmt: ${fmt} [expected tabular or json]`);
  const d = param(url, 'delimiter');
  let delimiter: number | null = null;
  if (d !== null) {
    const text = d === '\\t' || d.toLowerCase() === 'tab' ? '\t' : d;
    const usable = text.length === 1 && text.charCodeAt(0) <= 127 && !/[\r\n"]/.test(text);
    if (usable) delimiter = text.charCodeAt(0);
    else if (strict)
      throw importError(`invalid value for parameter delimiter: ${JSON.stringify(d)} [expected one ASCII character]`);
  }
  const pb = param(url, 'partitionBy');
  const partitionBy = pb === null ? null : (parsePartitionBy(pb) ?? null);
  if (pb !== null && partitionBy === null) throw importError('invalid partitionBy');
  const timestamp = param(url, 'timestamp');
  if (partitionBy !== null && partitionBy !== 'NONE' && timestamp === null) {
    throw importError('when specifying partitionBy you must also specify timestamp');
  }
  const mur = param(url, 'maxUncommittedRows');
  let maxUncommittedRows: number | undefined;
  if (mur !== null) {
    if (!/^[+-]?\d+$/.test(mur) || Math.abs(Number(mur)) > 2147483647)
      throw importError('invalid maxUncommittedRows, must be an int');
    // A negative value leaves the setting as it is (QuestDB); zero too, since a commit needs at least one row.
    if (Number(mur) >= 1) maxUncommittedRows = Number(mur);
    else if (strict)
      throw importError(`invalid value for parameter maxUncommittedRows: ${mur} [expected a positive integer]`);
  }
  const lag = param(url, 'o3MaxLag');
  let o3MaxLag: number | undefined;
  if (lag !== null) {
    // A bare number is microseconds (QuestDB; a negative one leaves the setting as it is); a duration with a unit (10s, 5m) works too.
    if (/^[+-]?\d+$/.test(lag)) {
      if (Number(lag) >= 0) o3MaxLag = Number(lag);
    } else {
      try {
        o3MaxLag = durationType.parse(lag) * 1000;
      } catch {
        throw importError('invalid o3MaxLag value, must be a long');
      }
    }
  }
  const flag = (name: string, def: boolean): boolean => {
    const v = param(url, name);
    if (v === null) return def;
    const l = v.toLowerCase();
    if (l === 'true') return true;
    if (l === 'false') return false;
    if (strict) throw importError(`invalid value for parameter ${name}: ${v} [expected true or false]`);
    // QuestDB: a flag is on only when it says true; create is off only when it says false.
    return name === 'create';
  };
  return {
    json: fmt === 'json',
    name,
    opts: {
      atomicity: atomicity ?? 'skipCol',
      delimiter,
      partitionBy,
      timestamp,
      analysisLines,
      forceHeader: flag('forceHeader', false),
      overwrite: flag('overwrite', false),
      create: flag('create', true),
      skipLev: flag('skipLev', false),
      maxUncommittedRows,
      o3MaxLag,
    },
  };
}
