// The graph worker: builds the stored compact graph's co-occurrence and walk graphs for the query worker while it
// reads and analyses the text (src/services/library/graphPrebuild.ts), then is ended.
import { expose } from 'comlink';
import { createGraphPrebuilder } from '../src/services/library/graphPrebuild.ts';
import { openDatabase } from '../src/store/db.ts';
import { Repo } from '../src/store/repo.ts';

const service = createGraphPrebuilder(new Repo(openDatabase()));

expose(service);
