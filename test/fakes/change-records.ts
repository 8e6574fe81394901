/** In-memory previews and policy-import journal with the DynamoDB ones' rules (conditional start, copies not references). */
import { copy } from './copy';
import type { Instant } from '../../functions/domain/instant';
import type {
  PolicyImport, PolicyImportRepository, PreviewRepository, StoredPreview,
} from '../../functions/application/ports';


export class InMemoryPreviewRepository implements PreviewRepository {
  readonly items = new Map<string, StoredPreview>();

  async save(preview: StoredPreview): Promise<void> {
    this.items.set(preview.previewId, copy(preview));
  }

  async get(previewId: string): Promise<StoredPreview | null> {
    const found = this.items.get(previewId);
    return found ? copy(found) : null;
  }
}

export class InMemoryPolicyImportRepository implements PolicyImportRepository {
  readonly items = new Map<string, PolicyImport>();

  async begin(record: PolicyImport): Promise<PolicyImport | null> {
    const kept = this.items.get(record.importId);
    if (kept && kept.state !== 'rolled_back') return copy(kept);
    this.items.set(record.importId, copy(record));
    return null;
  }

  async finish(importId: string, end: { state: 'applied' | 'rolled_back'; at: Instant; reason: string | null }): Promise<void> {
    const kept = this.items.get(importId);
    if (!kept || kept.state !== 'applying') throw new Error(`import ${importId} is not applying`);
    this.items.set(importId, { ...kept, state: end.state, finishedAt: end.at, reason: end.reason });
  }

  async get(importId: string): Promise<PolicyImport | null> {
    const found = this.items.get(importId);
    return found ? copy(found) : null;
  }
}
