/**
 * What the local detector can be asked for: each COCO class with its synonyms and the kinds of
 * thing it covers (hyponyms), plus general words that stand for several classes (hypernyms).
 *
 * Curated by hand rather than taken from WordNet: WordNet's senses would map "mouse" to a rodent
 * and "glass" to a material, while the detector knows only the COCO meanings; a short table whose
 * every entry is tested says exactly what we claim. Entries are singular; plurals are derived.
 */
import { COCO_CLASSES } from './cocoClasses';
import { ALL_CONCEPTS, type Concept } from './concepts';

/** Words and phrases naming (a kind of) exactly one class. The class name itself is implied. */
export const CLASS_SYNONYMS: Readonly<Record<Concept, readonly string[]>> = {
  person: [
    'people', 'human', 'human being', 'man', 'woman', 'boy', 'girl', 'child', 'kid', 'baby', 'toddler', 'infant', 'adult',
    'guy', 'lady', 'gentleman', 'teenager', 'teen', 'someone', 'somebody', 'individual', 'pedestrian', 'player', 'athlete',
    'skier', 'surfer', 'skateboarder', 'snowboarder', 'rider', 'cyclist', 'biker', 'runner', 'dancer', 'worker', 'chef',
    'cook', 'doctor', 'nurse', 'police officer', 'policeman', 'policewoman', 'soldier', 'firefighter', 'fireman', 'pilot',
    'astronaut', 'tourist', 'passenger', 'driver', 'student', 'farmer', 'bride', 'groom', 'batter', 'pitcher', 'catcher',
    'umpire', 'spectator', 'tennis player', 'baseball player', 'football player', 'crowd', 'family', 'couple',
    'father', 'mother', 'dad', 'mom', 'son', 'daughter', 'brother', 'sister', 'grandmother', 'grandfather', 'friend',
  ],
  bicycle: ['bike', 'mountain bike', 'road bike', 'bmx', 'tandem', 'push bike', 'pushbike'],
  car: [
    'automobile', 'auto', 'sedan', 'suv', 'taxi', 'cab', 'taxicab', 'hatchback', 'coupe', 'convertible', 'jeep', 'minivan',
    'limousine', 'limo', 'police car', 'sports car', 'race car', 'racecar', 'station wagon', 'motorcar',
  ],
  motorcycle: ['motorbike', 'moped', 'scooter', 'motor scooter', 'dirt bike', 'motorcycles'],
  airplane: ['aeroplane', 'plane', 'airplane', 'jet', 'airliner', 'jetliner', 'aircraft', 'jumbo jet', 'seaplane', 'biplane', 'fighter jet'],
  bus: ['minibus', 'school bus', 'double decker', 'double-decker bus', 'trolleybus', 'coach bus', 'autobus'],
  train: ['locomotive', 'tram', 'streetcar', 'subway train', 'metro train', 'railcar', 'freight train', 'steam engine', 'trolley car'],
  truck: ['lorry', 'pickup', 'pickup truck', 'fire truck', 'fire engine', 'dump truck', 'semi truck', 'tractor trailer', 'tow truck', 'delivery truck'],
  boat: [
    'ship', 'yacht', 'sailboat', 'sailing boat', 'canoe', 'kayak', 'ferry', 'vessel', 'raft', 'rowboat', 'dinghy', 'gondola',
    'speedboat', 'motorboat', 'catamaran', 'barge', 'tugboat', 'cruise ship', 'fishing boat',
  ],
  'traffic light': ['traffic signal', 'stoplight', 'stop light', 'traffic lamp'],
  'fire hydrant': ['hydrant', 'fireplug'],
  'stop sign': [],
  'parking meter': [],
  bench: ['park bench', 'pew'],
  bird: [
    'pigeon', 'dove', 'seagull', 'gull', 'duck', 'goose', 'swan', 'parrot', 'sparrow', 'crow', 'raven', 'eagle', 'hawk', 'owl',
    'chicken', 'hen', 'rooster', 'penguin', 'flamingo', 'pelican', 'heron', 'robin', 'finch', 'ostrich', 'songbird', 'duckling',
    'chick', 'poultry', 'waterfowl', 'seabird',
  ],
  cat: ['kitten', 'kitty', 'tabby', 'tabby cat', 'feline', 'tomcat', 'house cat', 'housecat'],
  dog: [
    'puppy', 'pup', 'doggy', 'doggie', 'hound', 'canine', 'labrador', 'retriever', 'golden retriever', 'poodle', 'terrier',
    'bulldog', 'beagle', 'dachshund', 'husky', 'chihuahua', 'corgi', 'collie', 'sheepdog', 'german shepherd', 'pug', 'spaniel',
    'greyhound', 'rottweiler', 'dalmatian', 'mutt', 'pooch',
  ],
  horse: ['pony', 'foal', 'stallion', 'mare', 'colt', 'equine', 'steed'],
  sheep: ['lamb', 'ram', 'ewe'],
  cow: ['cattle', 'bull', 'calf', 'ox', 'heifer', 'steer', 'bovine'],
  elephant: [],
  bear: ['grizzly', 'grizzly bear', 'polar bear', 'brown bear', 'black bear'],
  zebra: [],
  giraffe: [],
  backpack: ['rucksack', 'knapsack', 'daypack', 'school bag'],
  umbrella: ['parasol', 'brolly'],
  handbag: ['purse', 'clutch', 'tote', 'tote bag', 'shoulder bag'],
  tie: ['necktie', 'bow tie', 'bowtie', 'cravat'],
  suitcase: ['luggage', 'baggage', 'carry-on', 'valise', 'trolley case'],
  frisbee: ['flying disc'],
  skis: ['ski'],
  snowboard: [],
  'sports ball': ['ball', 'football', 'soccer ball', 'basketball', 'tennis ball', 'volleyball', 'golf ball', 'rugby ball', 'beach ball'],
  kite: [],
  'baseball bat': ['bat', 'cricket bat'],
  'baseball glove': ['baseball mitt', 'mitt'],
  skateboard: ['skate board', 'longboard'],
  surfboard: ['surf board', 'bodyboard', 'paddleboard'],
  'tennis racket': ['racket', 'racquet', 'tennis racquet'],
  bottle: ['water bottle', 'wine bottle', 'beer bottle', 'plastic bottle'],
  'wine glass': ['wineglass', 'goblet', 'champagne glass', 'champagne flute'],
  cup: ['mug', 'coffee cup', 'teacup', 'tea cup', 'coffee mug', 'tumbler', 'paper cup'],
  fork: [],
  knife: ['kitchen knife', 'butter knife'],
  spoon: ['teaspoon', 'tablespoon'],
  bowl: [],
  banana: [],
  apple: [],
  sandwich: ['burger', 'hamburger', 'cheeseburger', 'sub', 'panini', 'wrap'],
  orange: ['tangerine', 'mandarin', 'clementine'],
  broccoli: [],
  carrot: [],
  'hot dog': ['hotdog', 'frankfurter'],
  pizza: ['pizza slice', 'slice of pizza'],
  donut: ['doughnut'],
  cake: ['cupcake', 'birthday cake', 'cheesecake', 'wedding cake'],
  chair: ['armchair', 'stool', 'office chair', 'highchair', 'high chair', 'rocking chair', 'deck chair'],
  couch: ['sofa', 'settee', 'loveseat', 'futon', 'divan'],
  'potted plant': ['plant', 'houseplant', 'house plant', 'pot plant', 'flowerpot', 'planter', 'flower'],
  bed: ['bunk bed', 'cot'],
  'dining table': ['table', 'kitchen table', 'coffee table', 'dinner table'],
  toilet: ['loo', 'lavatory', 'commode', 'toilet bowl'],
  tv: ['television', 'tv set', 'tv monitor', 'monitor', 'telly', 'flat screen', 'flatscreen'],
  laptop: ['laptop computer', 'notebook computer', 'computer', 'macbook'],
  mouse: ['computer mouse'],
  remote: ['remote control', 'controller', 'game controller', 'clicker'],
  keyboard: ['computer keyboard'],
  'cell phone': ['cellphone', 'phone', 'mobile phone', 'smartphone', 'smart phone', 'iphone', 'telephone'],
  microwave: ['microwave oven'],
  oven: ['stove', 'cooker'],
  toaster: [],
  sink: ['washbasin', 'wash basin', 'basin'],
  refrigerator: ['fridge', 'freezer', 'icebox'],
  book: ['novel', 'textbook', 'paperback', 'hardcover'],
  clock: ['wall clock', 'alarm clock', 'clock tower'],
  vase: [],
  scissors: ['shears'],
  'teddy bear': ['teddy', 'stuffed animal', 'plush toy', 'soft toy', 'stuffed toy', 'plushie'],
  'hair drier': ['hair dryer', 'hairdryer', 'blow dryer', 'blowdryer'],
  toothbrush: ['tooth brush'],
  face: ['human face', 'visage'],
  // The Open Images SSD's labels that COCO lacks and that it was shown to find (openImagesSsd.ts).
  // Open Images files high heels under footwear (its label hierarchy), so "footwear" and "shoe" also
  // ask for those (HYPERNYMS).
  footwear: ['sneaker', 'running shoe', 'tennis shoe', 'athletic shoe', 'sandal', 'slipper', 'loafer', 'moccasin', 'clog', 'flip-flop', 'footgear'],
  'high heels': ['high heel', 'high-heeled shoe', 'stiletto', 'stiletto heel', 'heels', 'pumps'],
  desk: ['writing desk', 'office desk', 'computer desk', 'school desk', 'standing desk'],
};

/** General words standing for several classes. */
export const HYPERNYMS: Readonly<Record<string, readonly Concept[]>> = {
  vehicle: ['bicycle', 'car', 'motorcycle', 'airplane', 'bus', 'train', 'truck', 'boat'],
  'motor vehicle': ['car', 'motorcycle', 'bus', 'truck'],
  'road vehicle': ['bicycle', 'car', 'motorcycle', 'bus', 'truck'],
  van: ['car', 'truck'],
  transport: ['bicycle', 'car', 'motorcycle', 'airplane', 'bus', 'train', 'truck', 'boat'],
  animal: ['bird', 'cat', 'dog', 'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe'],
  creature: ['bird', 'cat', 'dog', 'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe'],
  mammal: ['cat', 'dog', 'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe'],
  pet: ['cat', 'dog'],
  livestock: ['horse', 'sheep', 'cow'],
  'farm animal': ['horse', 'sheep', 'cow'],
  'wild animal': ['elephant', 'bear', 'zebra', 'giraffe'],
  wildlife: ['bird', 'elephant', 'bear', 'zebra', 'giraffe'],
  food: ['banana', 'apple', 'sandwich', 'orange', 'broccoli', 'carrot', 'hot dog', 'pizza', 'donut', 'cake'],
  snack: ['banana', 'apple', 'sandwich', 'orange', 'hot dog', 'pizza', 'donut', 'cake'],
  fruit: ['banana', 'apple', 'orange'],
  vegetable: ['broccoli', 'carrot'],
  veggie: ['broccoli', 'carrot'],
  dessert: ['donut', 'cake'],
  pastry: ['donut', 'cake'],
  furniture: ['chair', 'couch', 'bed', 'dining table', 'bench', 'desk'],
  seat: ['chair', 'couch', 'bench'],
  appliance: ['microwave', 'oven', 'toaster', 'refrigerator'],
  'kitchen appliance': ['microwave', 'oven', 'toaster', 'refrigerator'],
  electronics: ['tv', 'laptop', 'mouse', 'remote', 'keyboard', 'cell phone'],
  'electronic device': ['tv', 'laptop', 'mouse', 'remote', 'keyboard', 'cell phone'],
  device: ['tv', 'laptop', 'mouse', 'remote', 'keyboard', 'cell phone'],
  gadget: ['laptop', 'mouse', 'remote', 'keyboard', 'cell phone'],
  footwear: ['footwear', 'high heels'],
  shoe: ['footwear', 'high heels'],
  screen: ['tv', 'laptop'],
  utensil: ['fork', 'knife', 'spoon'],
  cutlery: ['fork', 'knife', 'spoon'],
  silverware: ['fork', 'knife', 'spoon'],
  flatware: ['fork', 'knife', 'spoon'],
  tableware: ['bowl', 'cup', 'wine glass', 'fork', 'knife', 'spoon'],
  dish: ['bowl', 'cup', 'wine glass'],
  glass: ['wine glass', 'cup'],
  drink: ['bottle', 'cup', 'wine glass'],
  beverage: ['bottle', 'cup', 'wine glass'],
  container: ['bottle', 'cup', 'bowl', 'vase'],
  bag: ['handbag', 'backpack', 'suitcase'],
  'sports equipment': ['frisbee', 'skis', 'snowboard', 'sports ball', 'kite', 'baseball bat', 'baseball glove', 'skateboard', 'surfboard', 'tennis racket'],
  'sports gear': ['frisbee', 'skis', 'snowboard', 'sports ball', 'kite', 'baseball bat', 'baseball glove', 'skateboard', 'surfboard', 'tennis racket'],
  board: ['skateboard', 'surfboard', 'snowboard'],
  toy: ['teddy bear', 'kite', 'frisbee'],
  accessory: ['tie', 'handbag', 'backpack', 'umbrella'],
  'body part': ['face'],
  object: [...COCO_CLASSES],
  thing: [...COCO_CLASSES],
  everything: [...COCO_CLASSES],
  item: [...COCO_CLASSES],
};

const IRREGULAR_PLURALS: Readonly<Record<string, string>> = {
  person: 'people',
  man: 'men',
  woman: 'women',
  child: 'children',
  foot: 'feet',
  tooth: 'teeth',
  mouse: 'mice',
  goose: 'geese',
  ox: 'oxen',
  knife: 'knives',
  calf: 'calves',
  wolf: 'wolves',
  policeman: 'policemen',
  policewoman: 'policewomen',
  fireman: 'firemen',
  gentleman: 'gentlemen',
  sheep: 'sheep',
  cattle: 'cattle',
  luggage: 'luggage',
  baggage: 'baggage',
  broccoli: 'broccoli',
  scissors: 'scissors',
  shears: 'shears',
  skis: 'skis',
  electronics: 'electronics',
  wildlife: 'wildlife',
  livestock: 'livestock',
  furniture: 'furniture',
  food: 'food',
  cutlery: 'cutlery',
  silverware: 'silverware',
  flatware: 'flatware',
  tableware: 'tableware',
  poultry: 'poultry',
  waterfowl: 'waterfowl',
  everything: 'everything',
  'sports equipment': 'sports equipment',
  'sports gear': 'sports gear',
  'slice of pizza': 'slices of pizza',
  footwear: 'footwear',
  footgear: 'footgear',
  'high heels': 'high heels',
  heels: 'heels',
  stiletto: 'stilettos',
  pumps: 'pumps',
};

/** English plural of a word or phrase (the last word is inflected). */
export function pluralOf(phrase: string): string {
  const irregular = IRREGULAR_PLURALS[phrase];
  if (irregular) return irregular;
  const words = phrase.split(' ');
  const last = words[words.length - 1];
  const lastIrregular = IRREGULAR_PLURALS[last];
  let plural: string;
  if (lastIrregular) plural = lastIrregular;
  else if (/(s|x|z|ch|sh)$/.test(last)) plural = `${last}es`;
  else if (/[^aeiou]y$/.test(last)) plural = `${last.slice(0, -1)}ies`;
  else if (/[^f]fe?$/.test(last) && !/(chief|roof|giraffe|safe|cafe)$/.test(last)) plural = last.replace(/fe?$/, 'ves');
  else if (/[^aeiou]o$/.test(last) && !/(piano|photo|tv|radio|zoo|video|kangaroo|auto|limo|taxi)$/.test(last)) plural = `${last}es`;
  else plural = `${last}s`;
  return [...words.slice(0, -1), plural].join(' ');
}

export interface VocabularyEntry {
  readonly classes: readonly Concept[];
  /** The canonical phrase the entry came from (singular), for explanations. */
  readonly lemma: string;
}

/** Phrase (singular or plural, lower case, single spaces) → classes. Built once. */
export function buildVocabulary(): Map<string, VocabularyEntry> {
  const vocabulary = new Map<string, VocabularyEntry>();
  const add = (lemma: string, classes: readonly Concept[]): void => {
    for (const form of new Set([lemma, pluralOf(lemma), lemma.replace(/-/g, ' '), pluralOf(lemma).replace(/-/g, ' ')])) {
      const existing = vocabulary.get(form);
      // A word may be both a class synonym and a hypernym form ("glass"): keep the union.
      const merged = existing ? [...new Set([...existing.classes, ...classes])] : classes;
      vocabulary.set(form, { classes: merged, lemma: existing?.lemma ?? lemma });
    }
  };
  for (const name of ALL_CONCEPTS) {
    add(name, [name]);
    for (const synonym of CLASS_SYNONYMS[name]) add(synonym, [name]);
  }
  for (const [word, classes] of Object.entries(HYPERNYMS)) add(word, classes);
  return vocabulary;
}
