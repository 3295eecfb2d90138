// The import schema (SPEC.md "Import schema object"): a JSON array of
// {name, type, pattern}; columns not listed keep their detected type. Names
// are made column names as header values are, so that they match.
import { columnName } from './import-names.js';
import { importError, parseColumnType, type SchemaEntry } from './importer.js';

/** The `schema` part: [{name, type, pattern?}, ...]; `what` names it in errors (`svcdb import` names its --schema file). */
export function parseSchema(text: string, what = 'the schema part'): SchemaEntry[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw importError(`${what} is not valid JSON: expected [{"name": ..., "type": ..., "pattern": ...}, ...]`);
  }
  const list = Array.isArray(raw) ? raw : (raw as { columns?: unknown })?.columns;
  if (!Array.isArray(list)) throw importError(`${what} must be a JSON array of {"name", "type", "pattern"} objects`);
  return list.map((e: unknown, i) => {
    const o = e as { name?: unknown; type?: unknown; pattern?: unknown };
    if (typeof o?.name !== 'string' || typeof o.type !== 'string')
      throw importError(`schema entry ${i} needs string "name" and "type"`);
    const type = parseColumnType(o.type);
    if (type === null) throw importError(`schema entry ${o.name}: unknown type ${o.type}`);
    if (o.pattern !== undefined && typeof o.pattern !== 'string')
      throw importError(`schema entry ${o.name}: "pattern" must be a string`);
    return { name: columnName(o.name) || o.name, type, pattern: o.pattern };
  });
}
