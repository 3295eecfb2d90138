// Runs the real Prometheus Alertmanager (Debian package prometheus-alertmanager) on
// a free loopback port with a throwaway config and storage folder, for tests of the
// alert socket writer against the real receiver.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './ports.js';

export const ALERTMANAGER_BIN = '/usr/bin/prometheus-alertmanager';

export interface RunningAlertmanager {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The active alerts, as `GET /api/v2/alerts` returns them. */
  alerts(): Promise<any[]>;
  /** Polls the alerts until one matches `pred`; rejects after `timeoutMs`. */
  waitForAlert(pred: (alert: any) => boolean, timeoutMs?: number): Promise<any>;
  /** Kills the process and removes its folder. */
  stop(): Promise<void>;
}

// Every alert goes to a receiver with no integrations: Alertmanager stores it and
// shows it on its API, and sends nothing anywhere.
const CONFIG = `route:
  receiver: blackhole
  group_wait: 1h
receivers:
  - name: blackhole
`;

/** Starts Alertmanager and resolves once `/-/ready` answers 200. */
export async function startAlertmanager(): Promise<RunningAlertmanager> {
  try {
    accessSync(ALERTMANAGER_BIN, constants.X_OK);
  } catch {
    throw new Error(
      `${ALERTMANAGER_BIN} not found: install the Debian package prometheus-alertmanager ` +
        '(apt-get install prometheus-alertmanager)',
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'svcdb-alertmanager-'));
  await writeFile(join(dir, 'alertmanager.yml'), CONFIG);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    ALERTMANAGER_BIN,
    [
      `--config.file=${join(dir, 'alertmanager.yml')}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      // Empty disables the gossip cluster, which would otherwise bind 0.0.0.0:9094.
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    stderr = (stderr + s).slice(-4000);
  });
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  let exitedEarly = false;
  void exited.then(() => {
    exitedEarly = true;
  });
  child.once('error', () => {
    exitedEarly = true;
  });

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 15_000;
  for (;;) {
    if (exitedEarly) {
      await stop();
      throw new Error(`Alertmanager exited during startup: ${stderr.trim()}`);
    }
    try {
      const res = await fetch(`${url}/-/ready`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // Not listening yet: poll again below.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Alertmanager not ready on ${url} within 15 s: ${stderr.trim()}`);
    }
    // Polling is the only readiness signal Alertmanager gives.
    await sleep(50);
  }

  const alerts = async (): Promise<any[]> => {
    const res = await fetch(`${url}/api/v2/alerts`);
    if (res.status !== 200) throw new Error(`GET /api/v2/alerts: HTTP ${res.status}: ${await res.text()}`);
    return (await res.json()) as any[];
  };

  const waitForAlert = async (pred: (alert: any) => boolean, timeoutMs = 5000): Promise<any> => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const hit = (await alerts()).find(pred);
      if (hit !== undefined) return hit;
      if (Date.now() > until) throw new Error(`no matching alert on ${url} within ${timeoutMs} ms`);
      await sleep(50);
    }
  };

  return { port, url, alerts, waitForAlert, stop };
}
