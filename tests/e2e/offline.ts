/** Shared by the data e2e specs: the routed letter fixture and a context that never leaves localhost. */
import { readFileSync } from 'node:fs';
import type { BrowserContext } from '@playwright/test';

export const LETTER_URL = 'https://data.openml.org/datasets/0000/0006/dataset_6.pq';
export const LETTER_SHA = '56cd81c48b97e57b1ef8140b53839c2c78e7b3d7fbd197e03876c30a239307f8';
export const LETTER_PQ = readFileSync('tests/fixtures/data/letter.pq');
export const HEADERS = { 'access-control-allow-origin': '*', 'content-type': 'application/octet-stream' };

/** Every request that leaves localhost is aborted (and counted); routes added later take precedence. */
export async function offline(context: BrowserContext): Promise<string[]> {
  const outside: string[] = [];
  await context.route('**/*', (route) => {
    const host = new URL(route.request().url()).hostname;
    if (host === 'localhost' || host === '127.0.0.1') return route.continue();
    outside.push(route.request().url());
    return route.abort('internetdisconnected');
  });
  return outside;
}

/** The CIFAR-10 Hub folder whose parquet files the image specs route. */
export const CIFAR_URL = 'https://huggingface.co/datasets/uoft-cs/cifar10/resolve/main/plain_text/';

/** Serves CIFAR-10's two parquet files (train, test) from fixtures; call after `offline`. */
export async function routeCifar10(context: BrowserContext, train: Buffer, test: Buffer): Promise<void> {
  await context.route(`${CIFAR_URL}**`, (route) =>
    route.fulfill({
      status: 200,
      headers: HEADERS,
      body: route.request().url().endsWith('train-00000-of-00001.parquet') ? train : test,
    }),
  );
}
