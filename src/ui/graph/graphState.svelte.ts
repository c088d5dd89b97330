// State of the concept-graph view: which side is shown (a question's walk, or the library's top concepts), what
// the query worker returned for it, and the node the reader chose. The Ask view hands a question over with
// `showQuestion` (the hash carries only the view's name, so the question travels here, not in the URL).
import type { LibraryGraph, QuestionGraph } from '../../services/questions/graphViewProtocol.ts';
import { currentQueryWorker } from '../state/ask.svelte.ts';
import { messageOf } from '../../core/errors.ts';

type GraphSide = 'question' | 'library' | 'themes';

class GraphViewState {
  side = $state<GraphSide>('question');
  question = $state('');
  search = $state('');
  busy = $state(false);
  error = $state<string | null>(null);
  walk = $state.raw<QuestionGraph | null>(null);
  map = $state.raw<LibraryGraph | null>(null);
  /** The chosen node's id in the drawn graph (see layout.ts: c<concept id> or k:<chunk id>). */
  selected = $state<string | null>(null);
  /** A question handed over by the Ask view, drawn when the Graph view opens. */
  pending = $state<string | null>(null);
  /** Requests so far: an older answer never replaces a newer one. */
  private asked = 0;

  /** The Ask view's "show in graph": switches to the question side; GraphView draws it when it mounts. */
  showQuestion(question: string): void {
    this.side = 'question';
    this.question = question;
    this.pending = question;
  }

  async drawQuestion(libraryVersion: number): Promise<void> {
    const question = this.question.trim();
    if (!question) return;
    this.pending = null;
    await this.run(async () => {
      const worker = await currentQueryWorker(libraryVersion);
      const walk = await worker.graphForQuestion(question);
      return () => {
        this.walk = walk;
        this.selected = null;
      };
    });
  }

  async drawLibrary(libraryVersion: number): Promise<void> {
    const search = this.search.trim();
    await this.run(async () => {
      const worker = await currentQueryWorker(libraryVersion);
      const map = await worker.topConcepts({ search });
      return () => {
        this.map = map;
        this.selected = map.focus !== undefined ? `c${map.focus}` : null;
      };
    });
  }

  private async run(work: () => Promise<() => void>): Promise<void> {
    const id = ++this.asked;
    this.busy = true;
    this.error = null;
    try {
      const apply = await work();
      if (id === this.asked) apply();
    } catch (error) {
      if (id === this.asked) this.error = messageOf(error);
    } finally {
      if (id === this.asked) this.busy = false;
    }
  }
}

export const graphView = new GraphViewState();
