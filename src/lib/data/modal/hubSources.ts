/**
 * The image and text datasets of the Hugging Face Hub (PROTOCOL-IMAGE-TEXT.md §4.1): where each
 * split's parquet files live, which columns hold the content and the label, and the shapes and class
 * counts every download is checked against. Adding a Hub dataset is one entry here plus, for a new
 * kind of content, its decoder (images: png.ts).
 */

export type Modality = 'image' | 'text';

export interface HubSplitSpec {
  /** Parquet files of the split, concatenated in this order (§4.3: amazon's four train shards). */
  files: readonly string[];
  rows: number;
  /** Rows of each class (all classes have the same count in these datasets). */
  perClass: number;
}

export interface HubDatasetSpec {
  id: string;
  title: string;
  modality: Modality;
  /** `{owner}/{name}` of the dataset repository. */
  repo: string;
  /** The column with the PNG struct (`{bytes, path}`) or the text. */
  contentColumn: string;
  labelColumn: string;
  k: number;
  classNames: readonly string[];
  splits: Readonly<Record<string, HubSplitSpec>>;
  /** Image side (images are square and of one size in these datasets). */
  imageSize?: number;
  /** Where the licence is stated: the dataset card (not restated here, where it could go stale). */
  licence: string;
  /** Rows in blocks whose order the Hub may not keep (cifar10 train, §4.3). */
  blocks?: { split: string; rows: number; count: number };
}

// prettier-ignore
const CIFAR100_FINE = [
  'apple', 'aquarium_fish', 'baby', 'bear', 'beaver', 'bed', 'bee', 'beetle', 'bicycle', 'bottle',
  'bowl', 'boy', 'bridge', 'bus', 'butterfly', 'camel', 'can', 'castle', 'caterpillar', 'cattle',
  'chair', 'chimpanzee', 'clock', 'cloud', 'cockroach', 'couch', 'crab', 'crocodile', 'cup', 'dinosaur',
  'dolphin', 'elephant', 'flatfish', 'forest', 'fox', 'girl', 'hamster', 'house', 'kangaroo', 'keyboard',
  'lamp', 'lawn_mower', 'leopard', 'lion', 'lizard', 'lobster', 'man', 'maple_tree', 'motorcycle', 'mountain',
  'mouse', 'mushroom', 'oak_tree', 'orange', 'orchid', 'otter', 'palm_tree', 'pear', 'pickup_truck', 'pine_tree',
  'plain', 'plate', 'poppy', 'porcupine', 'possum', 'rabbit', 'raccoon', 'ray', 'road', 'rocket',
  'rose', 'sea', 'seal', 'shark', 'shrew', 'skunk', 'skyscraper', 'snail', 'snake', 'spider',
  'squirrel', 'streetcar', 'sunflower', 'sweet_pepper', 'table', 'tank', 'telephone', 'television', 'tiger', 'tractor',
  'train', 'trout', 'tulip', 'turtle', 'wardrobe', 'whale', 'willow_tree', 'wolf', 'woman', 'worm',
];

const CARD = 'as stated on the dataset card of its Hub repository';

export const HUB_DATASETS: Readonly<Record<string, HubDatasetSpec>> = {
  cifar10: {
    id: 'cifar10',
    title: 'CIFAR-10',
    modality: 'image',
    repo: 'uoft-cs/cifar10',
    contentColumn: 'img',
    labelColumn: 'label',
    k: 10,
    // prettier-ignore
    classNames: ['airplane', 'automobile', 'bird', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck'],
    splits: {
      train: { files: ['plain_text/train-00000-of-00001.parquet'], rows: 50_000, perClass: 5_000 },
      test: { files: ['plain_text/test-00000-of-00001.parquet'], rows: 10_000, perClass: 1_000 },
    },
    imageSize: 32,
    licence: CARD,
    blocks: { split: 'train', rows: 10_000, count: 5 },
  },
  cifar100: {
    id: 'cifar100',
    title: 'CIFAR-100',
    modality: 'image',
    repo: 'uoft-cs/cifar100',
    contentColumn: 'img',
    labelColumn: 'fine_label',
    k: 100,
    classNames: CIFAR100_FINE,
    splits: {
      train: { files: ['cifar100/train-00000-of-00001.parquet'], rows: 50_000, perClass: 500 },
      test: { files: ['cifar100/test-00000-of-00001.parquet'], rows: 10_000, perClass: 100 },
    },
    imageSize: 32,
    licence: CARD,
  },
  ag_news: {
    id: 'ag_news',
    title: 'AG News',
    modality: 'text',
    repo: 'fancyzhx/ag_news',
    contentColumn: 'text',
    labelColumn: 'label',
    k: 4,
    classNames: ['World', 'Sports', 'Business', 'Sci/Tech'],
    splits: {
      train: { files: ['data/train-00000-of-00001.parquet'], rows: 120_000, perClass: 30_000 },
      test: { files: ['data/test-00000-of-00001.parquet'], rows: 7_600, perClass: 1_900 },
    },
    licence: CARD,
  },
  imdb: {
    id: 'imdb',
    title: 'IMDB reviews',
    modality: 'text',
    repo: 'stanfordnlp/imdb',
    contentColumn: 'text',
    labelColumn: 'label',
    k: 2,
    classNames: ['negative', 'positive'],
    splits: {
      train: { files: ['plain_text/train-00000-of-00001.parquet'], rows: 25_000, perClass: 12_500 },
    },
    licence: CARD,
  },
  amazon_polarity: {
    id: 'amazon_polarity',
    title: 'Amazon polarity',
    modality: 'text',
    repo: 'fancyzhx/amazon_polarity',
    contentColumn: 'content',
    labelColumn: 'label',
    k: 2,
    classNames: ['negative', 'positive'],
    splits: {
      train: {
        files: [0, 1, 2, 3].map((i) => `amazon_polarity/train-0000${i}-of-00004.parquet`),
        rows: 3_600_000,
        perClass: 1_800_000,
      },
      test: { files: ['amazon_polarity/test-00000-of-00001.parquet'], rows: 400_000, perClass: 200_000 },
    },
    licence: CARD,
  },
};

/** The whole-file GET address of a dataset file (§4.1: no HEAD, no Range). */
export function hubFileUrl(repo: string, path: string): string {
  return `https://huggingface.co/datasets/${repo}/resolve/main/${path}`;
}
