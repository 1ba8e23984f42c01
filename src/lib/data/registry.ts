/**
 * The dataset registry: canonical identity of each built-in dataset (PROTOCOL.md §4).
 * Row order is the source file's order; labels are sorted distinct raw labels -> 0..k-1.
 */
import type { BuiltinDatasetId } from '../types.ts';

export interface DatasetSource {
  /** How the bytes are laid out. */
  format: 'csv' | 'parquet';
  url: string;
  /** Short name of the host, shown in the UI. */
  host: string;
}

export interface DatasetInfo {
  id: BuiltinDatasetId;
  title: string;
  N: number;
  d: number;
  k: number;
  classCounts: number[];
  /** Embedded datasets ship with the site under public/data (no network). */
  embedded: boolean;
  /** Path relative to the site root, for embedded datasets. */
  embeddedPath?: string;
  /** Remote sources, tried in order. */
  sources: DatasetSource[];
  /** SHA-256 of the canonical content, or null where the content is pinned by shape and counts only. */
  sha256: string | null;
  /** Name of the label column in the source file. */
  labelColumn: string;
  featureNames?: string[];
  classNames: string[];
  licence: string;
  citation: string;
  origin: string;
}

const UCI_LICENCE = 'CC BY 4.0 (UCI Machine Learning Repository)';

/**
 * OpenML's parquet copy of dataset `id`: https://data.openml.org/datasets/<id div 10000, 4 digits>/<id, 4 digits>/dataset_<id>.pq
 * (the layout OpenML's API gives as `parquet_url`), then the same object on OpenML's MinIO host as a fallback.
 */
function openmlParquetSources(id: number): DatasetSource[] {
  const path = `datasets/${String(Math.floor(id / 10000)).padStart(4, '0')}/${String(id).padStart(4, '0')}/dataset_${id}.pq`;
  return [
    { format: 'parquet', url: `https://data.openml.org/${path}`, host: 'data.openml.org' },
    {
      format: 'parquet',
      url: `https://openml1.win.tue.nl/${path}`,
      host: 'openml1.win.tue.nl (OpenML MinIO)',
    },
  ];
}

export const DATASETS: Record<BuiltinDatasetId, DatasetInfo> = {
  iris: {
    id: 'iris',
    title: 'Iris',
    N: 150,
    d: 4,
    k: 3,
    classCounts: [50, 50, 50],
    embedded: true,
    embeddedPath: 'data/iris.csv',
    sources: [],
    sha256: '9b79658cba271fcb89e5057cc9c419f9d5b396682cbba6476588f169beb63352',
    labelColumn: 'class',
    classNames: ['setosa', 'versicolor', 'virginica'],
    licence: UCI_LICENCE,
    citation:
      'Fisher, R. A. (1936). Iris [Dataset]. UCI Machine Learning Repository. https://doi.org/10.24432/C56C76',
    origin: "scikit-learn's bundled copy (rows 35 and 38 differ from the UCI file)",
  },
  wine: {
    id: 'wine',
    title: 'Wine',
    N: 178,
    d: 13,
    k: 3,
    classCounts: [59, 71, 48],
    embedded: true,
    embeddedPath: 'data/wine.csv',
    sources: [],
    sha256: 'e5ea8013d0fc4515a38e983a9c6edc07439b936b5d443afc877c79e1425cf3ae',
    labelColumn: 'class',
    classNames: ['class_0', 'class_1', 'class_2'],
    licence: UCI_LICENCE,
    citation:
      'Aeberhard, S. & Forina, M. (1992). Wine [Dataset]. UCI Machine Learning Repository. https://doi.org/10.24432/C5PC7J',
    origin: "scikit-learn's bundled copy of UCI Wine",
  },
  letter: {
    id: 'letter',
    title: 'Letter Recognition',
    N: 20000,
    d: 16,
    k: 26,
    classCounts: [
      789, 766, 736, 805, 768, 775, 773, 734, 755, 747, 739, 761, 792, 783, 753, 803, 783, 758, 748, 796, 813,
      764, 752, 787, 786, 734,
    ],
    embedded: false,
    sources: openmlParquetSources(6),
    // Canonical content of UCI Letter Recognition in UCI row order, made offline from Debian's
    // r-cran-mlbench copy by scripts/fixtures/make_letter.py (tests/fixtures/data/letter.csv).
    sha256: '56cd81c48b97e57b1ef8140b53839c2c78e7b3d7fbd197e03876c30a239307f8',
    labelColumn: 'class',
    featureNames: [
      'x-box',
      'y-box',
      'width',
      'high',
      'onpix',
      'x-bar',
      'y-bar',
      'x2bar',
      'y2bar',
      'xybar',
      'x2ybr',
      'xy2br',
      'x-ege',
      'xegvy',
      'y-ege',
      'yegvx',
    ],
    classNames: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split(''),
    licence: UCI_LICENCE,
    citation:
      'Slate, D. (1991). Letter Recognition [Dataset]. UCI Machine Learning Repository. https://doi.org/10.24432/C5ZP40',
    origin: 'OpenML dataset 6',
  },
  covertype: {
    id: 'covertype',
    title: 'Covertype',
    N: 581012,
    d: 54,
    k: 7,
    classCounts: [211840, 283301, 35754, 2747, 9493, 17367, 20510],
    embedded: false,
    sources: openmlParquetSources(1596),
    sha256: null,
    labelColumn: 'class',
    classNames: ['1', '2', '3', '4', '5', '6', '7'],
    licence: UCI_LICENCE,
    citation:
      'Blackard, J. (1998). Covertype [Dataset]. UCI Machine Learning Repository. https://doi.org/10.24432/C50K5N',
    origin: 'OpenML dataset 1596',
  },
};

export const DATASET_IDS = Object.keys(DATASETS) as BuiltinDatasetId[];

export function isBuiltinDatasetId(id: string): id is BuiltinDatasetId {
  return Object.prototype.hasOwnProperty.call(DATASETS, id);
}
