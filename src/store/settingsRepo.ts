// Settings over IndexedDB (table settings: key → value). Local only: a bundle never carries them, and emptying the
// library keeps them.
import type { ConceptDb } from './db.ts';

export class SettingsRepo {
  constructor(private readonly db: ConceptDb) {}

  async getSetting<T>(key: string): Promise<T | undefined> {
    return (await this.db.settings.get(key))?.value as T | undefined;
  }

  async setSetting(key: string, value: unknown): Promise<void> {
    await this.db.settings.put({ key, value });
  }
}
