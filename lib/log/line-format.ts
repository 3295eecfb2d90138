// The log line of SPEC.md "Log message": `<ISO-8601 UTC micros> <marker> <logger> <message>`.
import { formatIsoMicros } from './clock.js';
import { MARKER, type LevelBit } from './levels.js';

/** Keeps a message on one line: CR and LF become the two characters `\n`. */
export function oneLine(message: string): string {
  return /[\r\n]/.test(message) ? message.replace(/\r\n|\r|\n/g, '\\n') : message;
}

export function formatLine(micros: number, level: LevelBit, logger: string, message: string): string {
  return `${formatIsoMicros(micros)} ${MARKER[level]} ${logger} ${message}`;
}
