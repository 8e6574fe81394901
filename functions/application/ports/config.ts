/** The configuration's ports: settings, vendor policies and holds as planning reads them, previews and policy imports. */
import type { Instant } from '../../domain/instant';
import type { Settings, VendorPolicy, VersionedSettings, VendorHold } from '../../domain/types';

export interface SettingsRepository {
  /** The current settings; the defaults (version 0) when none were ever saved. */
  get(): Promise<VersionedSettings>;
  /** Saves a new version, conditional on `expectedVersion` being the latest. */
  save(settings: Settings, meta: { actor: string; reason: string; at: Instant; expectedVersion: number }): Promise<VersionedSettings>;
  history(): Promise<VersionedSettings[]>;
}

export interface PolicyRepository {
  /** The latest version, or null for a vendor without a stored policy. */
  current(vendorId: string): Promise<VendorPolicy | null>;
  /** Stores `policy` as version `policy.version`; conflicts if that version exists. */
  save(policy: VendorPolicy): Promise<VendorPolicy>;
  /** Every version, newest first. */
  history(vendorId: string): Promise<VendorPolicy[]>;
  /** A given version (for outcomes that recorded it). */
  version(vendorId: string, version: number): Promise<VendorPolicy | null>;
}

/** What planning an order's releases reads: the settings in force and each vendor's current policy. */
export interface PlanningConfig {
  settings: VersionedSettings;
  /** Every vendor asked for; null for a vendor without a stored policy (the default applies). */
  policies: Map<string, VendorPolicy | null>;
  /** Every vendor asked for; null for a vendor never held. Read consistently: a stored hold is always seen. */
  holds: Map<string, VendorHold | null>;
  /**
   * Every vendor asked for: the policy last applied to its open orders (PUT policy with `applyTo: "open_orders"`, or
   * an import), null when none was. Read consistently with the holds: a release pinned to an older version is planned
   * under this one from the apply's answer on, whether or not the apply's job has reached it yet. Absent: none.
   */
  openOrderPolicies?: Map<string, VendorPolicy | null>;
}

/** The policy each vendor's open orders were last told to follow (see PlanningConfig.openOrderPolicies). */
export interface OpenOrderPolicyRepository {
  /** Stores it as the vendor's policy for open orders, unless a newer version is stored there already. */
  put(policy: VendorPolicy): Promise<void>;
}

/** Vendor holds (contract 6): one item per vendor, its last hold or unhold. */
export interface VendorHoldRepository {
  /** The vendor's hold as last stored (consistent read), or null when it was never held. */
  get(vendorId: string): Promise<VendorHold | null>;
  put(hold: VendorHold): Promise<void>;
}

export interface ConfigReader {
  /** The settings and the current policy of each vendor, read together (one round trip for a whole order). */
  forPlanning(vendorIds: readonly string[]): Promise<PlanningConfig>;
}

/** What a preview showed (contract 6, `previewId`), kept until it expires so that a later PUT can require it to hold. */
export interface StoredPreview {
  previewId: string;
  /** What it previewed: `policy:<vendorId>` or `settings`. */
  scope: string;
  /** The digest of the releases and versions it covered and of the change (domain/preview.ts previewDigest). */
  digest: string;
  createdAt: Instant;
  expiresAt: Instant;
}

export interface PreviewRepository {
  save(preview: StoredPreview): Promise<void>;
  /** The preview, or null when it was never made (an expired one is returned; the caller checks `expiresAt`). */
  get(previewId: string): Promise<StoredPreview | null>;
}

/** One bulk policy import, keyed by the digest of its file, so that the same file is applied once. */
export interface PolicyImport {
  importId: string;
  actor: string;
  rows: number;
  state: 'applying' | 'applied' | 'rolled_back';
  startedAt: Instant;
  finishedAt: Instant | null;
  /** Why it was rolled back; null otherwise. */
  reason: string | null;
}

export interface PolicyImportRepository {
  /**
   * Records that an import starts (state `applying`): null when it was written, or the record kept already (nothing
   * written then), except that a rolled-back import may start again.
   */
  begin(record: PolicyImport): Promise<PolicyImport | null>;
  /** Ends an import that is `applying`. */
  finish(importId: string, end: { state: 'applied' | 'rolled_back'; at: Instant; reason: string | null }): Promise<void>;
  get(importId: string): Promise<PolicyImport | null>;
}
