// The csv-parse options under which it tokenizes as svcdb's CSV tokenizer
// does (RFC 4180 quotes, lenient stray quotes, ragged lines, CR/LF/CRLF,
// BOM): the differential test's reference and the tokenizer benchmark's peer.
import type { Options } from 'csv-parse';

export function csvParseOptions(delimiter: string): Options {
  return {
    delimiter,
    quote: '"',
    escape: '"',
    bom: true,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    record_delimiter: ['\r\n', '\n', '\r'],
  };
}
