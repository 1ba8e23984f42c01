// Types of build.mjs, for the unit test that checks the committed table is a fresh build.
export const TABLE_PATH: string;
export const LICENSE_PATH: string;
export function readStopWords(path?: string): Set<string>;
export function wordnetDb(): { dict: string; libVersion: string; version: string };
export function readSynsets(dict: string): { key: string; names: string[] }[];
export function cleanLemma(name: string): string;
export function buildSynonymTable(dict: string, stopWords: ReadonlySet<string>, header: string): string;
export function licenseText(dict: string): string;
export function buildFiles(): { table: string; license: string };
