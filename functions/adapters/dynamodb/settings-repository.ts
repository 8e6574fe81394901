/** Versioned merchant settings in the config table: the version in force, and every version as history. */
import type { DocumentClient } from './document-client';
import type { Instant } from '../../domain/instant';
import { DEFAULT_SETTINGS } from '../../domain/settings';
import type { Settings, VersionedSettings } from '../../domain/types';
import type { Clock, SettingsRepository } from '../../application/ports';
import { SETTINGS_PK, VersionedItems } from './versioned-items';

/** What is in force before anyone saved settings: the defaults, as version 0, stamped now. */
export function unsavedSettings(clock: Clock): VersionedSettings {
  return {
    ...DEFAULT_SETTINGS,
    version: 0,
    actor: 'system',
    reason: 'default settings',
    at: clock.now().in(DEFAULT_SETTINGS.timezone).wholeSecond(),
  };
}

export class DynamoSettingsRepository implements SettingsRepository {
  private readonly items: VersionedItems<VersionedSettings>;

  /** `clock` stamps the defaults' `at` when nothing was ever saved. */
  constructor(doc: DocumentClient, tableName: string, private readonly clock: Clock) {
    this.items = new VersionedItems(doc, tableName);
  }

  async get(): Promise<VersionedSettings> {
    return (await this.items.current(SETTINGS_PK)) ?? unsavedSettings(this.clock);
  }

  save(
    settings: Settings, meta: { actor: string; reason: string; at: Instant; expectedVersion: number },
  ): Promise<VersionedSettings> {
    const saved: VersionedSettings = {
      ...settings, version: meta.expectedVersion + 1, actor: meta.actor, reason: meta.reason, at: meta.at,
    };
    return this.items.save(SETTINGS_PK, saved, () =>
      `settings: version ${meta.expectedVersion} is not the one in force (someone saved meanwhile); reload and send the latest version`);
  }

  /** Saved versions, newest first (the defaults, version 0, are never stored). */
  history(): Promise<VersionedSettings[]> {
    return this.items.history(SETTINGS_PK);
  }

  /** One saved version, or null. */
  version(version: number): Promise<VersionedSettings | null> {
    return this.items.version(SETTINGS_PK, version);
  }
}
