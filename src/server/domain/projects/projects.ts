/**
 * Projects on the server (issue 28): who may see and change what, images stored once per distinct
 * file under a per-account quota, and annotations written with optimistic concurrency. No HTTP
 * here: routes (http/routes/projects.ts) turn the DomainErrors into problems.
 */
import { sql, type Transaction } from 'kysely';
import type { AnnotationObject, ImageAnnotations, MemberRole, Project, ProjectClass, ProjectImage, ProjectRole } from '../../../contract/projects';
import type { Db } from '../../db/connect';
import type { AnnotationWriteInThread, ProjectDatasetSource } from '../../exports/protocol';
import type { Database, ProjectImagesTable, ProjectsTable } from '../../db/schema';
import type { Clock } from '../clock';
import { DomainError } from '../errors';
import { opaqueId, sha256Hex } from '../ids';
import type { ImageSize } from '../imageField';
import type { BlobStore } from './blobStore';
import { checkProjectVertices } from './annotationLimits';
import { annotationsJsonBytes, commitAnnotationWrite, type AnnotationsAsStored, type AnnotationWriteJob, type AnnotationWriteOutcome } from './annotationCommit';
import type { ProjectEvents } from './projectEvents';
import { roleAllows, type ProjectAction } from './roles';
import { ThumbnailCache, THUMBNAIL_VARIANT } from './thumbnails';

/** PROJECT_QUOTA_BYTES unless set: 1 GiB per account. */
export const DEFAULT_PROJECT_QUOTA_BYTES = 1024 ** 3;

export interface ProjectsOptions {
  /** Bytes an account may store across the projects it owns (distinct files counted once). */
  quotaBytes: number;
  /** The header check of an uploaded file (inference/imageCheck.ts): its displayed size, or 400. */
  checkImage: (bytes: Uint8Array) => Promise<ImageSize>;
  /**
   * Does an annotation write (annotationCommit.ts): at once, by `writeHere`, when the body and the
   * image's objects as stored (`storedChars` long) are small, else whole in a worker thread on a
   * connection of its own.
   */
  writeAnnotations: (job: AnnotationWriteInThread, storedChars: number, writeHere: (write: AnnotationWriteJob) => Promise<AnnotationWriteOutcome>) => Promise<AnnotationWriteOutcome>;
  /** The projects' live stream (issue 38): every write of annotations is an event. */
  events?: ProjectEvents;
}

interface Access {
  project: ProjectsTable;
  role: ProjectRole;
}

/**
 * An image's annotations with its objects as stored, JSON text: the routes send them as they are,
 * so a large image's objects are neither parsed nor serialised again on the event loop.
 */
export interface StoredAnnotations extends Omit<ImageAnnotations, 'objects'> {
  objectsJson: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const notFound = () => new DomainError('not-found', 'no such project (or it is not shared with you)');

/**
 * An image's row without its `objects`: what listing, uploading, a thumbnail or the file need. The
 * objects of one image can be many megabytes of JSON, and reading them is synchronous SQLite work
 * on the event loop: a project export's listing held it for one large image (docs/RESULTS.md, h39-health).
 */
type ImageHead = Omit<ProjectImagesTable, 'objects'>;
const IMAGE_HEAD_COLUMNS = ['id', 'project_id', 'digest', 'name', 'width', 'height', 'revision', 'vertex_count', 'updated_by', 'updated_at', 'created_by', 'created_at', 'assignee_id'] as const satisfies readonly (keyof ImageHead)[];

export class Projects {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly blobs: BlobStore,
    private readonly options: ProjectsOptions,
    private readonly thumbnails = new ThumbnailCache(),
  ) {}

  /**
   * The caller's role, or 404 for a project that is not theirs and not shared with them (an
   * invitation not yet accepted included); 403 only to members. One query whether the project
   * exists or not, so the 404 takes the same time either way.
   */
  authorize(accountId: string, projectId: string, action: ProjectAction): Promise<Access> {
    return this.access(accountId, projectId, action);
  }

  private async access(accountId: string, projectId: string, action: ProjectAction): Promise<Access> {
    const found = await this.db.kysely
      .selectFrom('projects')
      .leftJoin('project_members', (join) => join.onRef('project_members.project_id', '=', 'projects.id').on('project_members.account_id', '=', accountId))
      .selectAll('projects')
      .select(['project_members.role as member_role', 'project_members.joined_at as member_joined_at'])
      .where('projects.id', '=', projectId)
      .executeTakeFirst();
    if (!found) throw notFound();
    const { member_role, member_joined_at, ...project } = found;
    // An invitation not yet accepted is no membership: the project stays hidden.
    const role: ProjectRole | null = project.owner_id === accountId ? 'owner' : member_joined_at === null || member_joined_at === undefined ? null : member_role;
    if (!role) throw notFound();
    if (!roleAllows(role, action)) throw new DomainError('role-forbidden', `a project's ${role} cannot ${action.replace('-', ' ')}`);
    return { project, role };
  }

  private async view(project: ProjectsTable, role: ProjectRole): Promise<Project> {
    const [owner, count] = await Promise.all([
      this.db.kysely.selectFrom('accounts').select('email').where('id', '=', project.owner_id).executeTakeFirstOrThrow(),
      this.db.kysely.selectFrom('project_images').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', project.id).executeTakeFirstOrThrow(),
    ]);
    return {
      id: project.id,
      name: project.name,
      owner: owner.email,
      role,
      classes: JSON.parse(project.classes) as ProjectClass[],
      imageCount: Number(count.n),
      createdAt: iso(project.created_at)!,
      updatedAt: iso(project.updated_at)!,
    };
  }

  async create(accountId: string, name: string, classes: ProjectClass[] = []): Promise<Project> {
    const now = this.clock.now();
    const project: ProjectsTable = { id: opaqueId('prj'), owner_id: accountId, name, classes: JSON.stringify(classes), created_at: now, updated_at: now };
    await this.db.kysely.insertInto('projects').values(project).execute();
    return this.view(project, 'owner');
  }

  /** Mine and shared with me, newest first. */
  async list(accountId: string): Promise<Project[]> {
    const owned = await this.db.kysely.selectFrom('projects').selectAll().where('owner_id', '=', accountId).execute();
    const shared = await this.db.kysely
      .selectFrom('project_members')
      .innerJoin('projects', 'projects.id', 'project_members.project_id')
      .selectAll('projects')
      .select('project_members.role as member_role')
      .where('project_members.account_id', '=', accountId)
      .where('project_members.joined_at', 'is not', null)
      .execute();
    const views = await Promise.all([
      ...owned.map((p) => this.view(p, 'owner')),
      ...shared.map(({ member_role, ...p }) => this.view(p, member_role)),
    ]);
    return views.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  }

  async get(accountId: string, projectId: string): Promise<Project> {
    const { project, role } = await this.access(accountId, projectId, 'read');
    return this.view(project, role);
  }

  async updateClasses(accountId: string, projectId: string, classes: ProjectClass[]): Promise<Project> {
    const { project, role } = await this.access(accountId, projectId, 'edit-classes');
    const updated = { ...project, classes: JSON.stringify(classes), updated_at: this.clock.now() };
    await this.db.kysely.updateTable('projects').set({ classes: updated.classes, updated_at: updated.updated_at }).where('id', '=', projectId).execute();
    return this.view(updated, role);
  }

  private imageView(row: ImageHead, size: number, assignee: string | null = null): ProjectImage {
    return { id: row.id, name: row.name, width: row.width, height: row.height, sha256: row.digest, bytes: size, revision: row.revision, assignee, createdAt: iso(row.created_at)! };
  }

  /**
   * Stores the file once (content-addressed) and adds it to the project, all or nothing. The same
   * file already in this project answers that image (`created: false`). The owner's quota counts
   * each distinct file of their projects once, whoever uploaded it.
   */
  async addImage(accountId: string, projectId: string, name: string, bytes: Uint8Array): Promise<{ image: ProjectImage; created: boolean }> {
    const { project } = await this.access(accountId, projectId, 'add-image');
    const digest = sha256Hex(bytes);
    const existing = await this.findByDigest(projectId, digest);
    if (existing) return { image: this.imageView(existing, bytes.byteLength), created: false };
    const size = await this.options.checkImage(bytes);
    await this.blobs.prepare(digest, bytes);
    const now = this.clock.now();
    const row: ProjectImagesTable = {
      id: opaqueId('img'),
      project_id: projectId,
      digest,
      name,
      width: size.width,
      height: size.height,
      revision: 0,
      objects: '[]',
      vertex_count: 0,
      updated_by: null,
      updated_at: null,
      created_by: accountId,
      created_at: now,
    };
    const adder = await this.emailOf(accountId);
    const stored = await this.db.transaction(async (trx) => {
      await this.lockAccount(trx, project.owner_id);
      const twin = await this.findByDigest(projectId, digest, trx);
      if (twin) return { row: twin, created: false };
      await this.checkQuota(trx, project.owner_id, digest, bytes.byteLength);
      await this.blobs.record(trx, digest, bytes, now);
      await trx.insertInto('project_images').values(row).execute();
      await trx.updateTable('projects').set({ updated_at: now }).where('id', '=', projectId).execute();
      await this.options.events?.record(trx, projectId, [{ type: 'image-added', imageId: row.id, changedBy: adder }]);
      return { row, created: true };
    });
    if (stored.created) this.options.events?.wake(projectId);
    // The list will ask for its thumbnail next: render it now, off the request, while the bytes are at hand.
    if (stored.created) this.thumbnails.get(thumbnailKey(projectId, digest), async () => bytes).catch(() => undefined);
    return { image: this.imageView(stored.row, bytes.byteLength), created: stored.created };
  }

  /** Uploads of one owner's projects queue here, so two of them cannot both fit the last free bytes. */
  private async lockAccount(trx: Transaction<Database>, accountId: string): Promise<void> {
    // SQLite: the transaction already holds the database's write lock (BEGIN IMMEDIATE).
    if (this.db.dialect === 'postgres') await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
  }

  private findByDigest(projectId: string, digest: string, trx?: Transaction<Database>): Promise<ImageHead | undefined> {
    return (trx ?? this.db.kysely).selectFrom('project_images').select(IMAGE_HEAD_COLUMNS).where('project_id', '=', projectId).where('digest', '=', digest).executeTakeFirst();
  }

  private ownedDigests(trx: Transaction<Database>, ownerId: string) {
    return trx
      .selectFrom('project_images')
      .innerJoin('projects', 'projects.id', 'project_images.project_id')
      .select('project_images.digest')
      .where('projects.owner_id', '=', ownerId);
  }

  /** Bytes the account stores now: each distinct file of its projects once. */
  async usedBytes(ownerId: string): Promise<number> {
    return this.db.transaction((trx) => this.usedBytesIn(trx, ownerId), 'relaxed');
  }

  private async usedBytesIn(trx: Transaction<Database>, ownerId: string): Promise<number> {
    const row = await trx
      .selectFrom('blobs')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size'), eb.lit(0)).as('used'))
      .where('digest', 'in', this.ownedDigests(trx, ownerId))
      .executeTakeFirstOrThrow();
    return Number(row.used);
  }

  private async checkQuota(trx: Transaction<Database>, ownerId: string, digest: string, size: number): Promise<void> {
    const counted = await this.ownedDigests(trx, ownerId).where('project_images.digest', '=', digest).executeTakeFirst();
    const needed = counted ? 0 : size;
    const used = await this.usedBytesIn(trx, ownerId);
    const quota = this.options.quotaBytes;
    if (used + needed > quota) {
      throw new DomainError('storage-quota-exceeded', `the project owner stores ${used} of ${quota} bytes; this image needs ${needed} more`, {
        members: { usedBytes: used, quotaBytes: quota, neededBytes: needed },
      });
    }
  }

  async listImages(accountId: string, projectId: string): Promise<ProjectImage[]> {
    await this.access(accountId, projectId, 'read');
    const rows = await this.db.kysely
      .selectFrom('project_images')
      .innerJoin('blobs', 'blobs.digest', 'project_images.digest')
      .leftJoin('accounts as assignee', 'assignee.id', 'project_images.assignee_id')
      .select(IMAGE_HEAD_COLUMNS.map((column) => `project_images.${column}` as const))
      .select(['blobs.size', 'assignee.email as assignee_email'])
      .where('project_id', '=', projectId)
      .orderBy('project_images.created_at')
      .orderBy('project_images.id')
      .execute();
    return rows.map(({ size, assignee_email, ...row }) => this.imageView(row, Number(size), assignee_email ?? null));
  }

  private async imageRow(projectId: string, imageId: string): Promise<ImageHead> {
    const row = await this.db.kysely.selectFrom('project_images').select(IMAGE_HEAD_COLUMNS).where('id', '=', imageId).where('project_id', '=', projectId).executeTakeFirst();
    if (!row) throw new DomainError('not-found', 'no such image in this project');
    return row;
  }

  private async imageRowWithObjects(projectId: string, imageId: string): Promise<ProjectImagesTable> {
    const row = await this.db.kysely.selectFrom('project_images').selectAll().where('id', '=', imageId).where('project_id', '=', projectId).executeTakeFirst();
    if (!row) throw new DomainError('not-found', 'no such image in this project');
    return row;
  }

  private async blob(row: ImageHead): Promise<Uint8Array> {
    const bytes = await this.blobs.read(row.digest);
    if (!bytes) throw new Error(`blob ${row.digest} of image ${row.id} is missing`);
    return bytes;
  }

  /** An image and its file as a job of the project reads them (the job was authorized when it was started); undefined once deleted. */
  async imageForJob(projectId: string, imageId: string): Promise<{ row: ProjectImagesTable; classes: ProjectClass[]; bytes: Uint8Array } | undefined> {
    const row = await this.db.kysely.selectFrom('project_images').selectAll().where('id', '=', imageId).where('project_id', '=', projectId).executeTakeFirst();
    if (!row) return undefined;
    const project = await this.db.kysely.selectFrom('projects').select('classes').where('id', '=', projectId).executeTakeFirstOrThrow();
    return { row, classes: JSON.parse(project.classes) as ProjectClass[], bytes: await this.blob(row) };
  }

  async imageFile(accountId: string, projectId: string, imageId: string): Promise<{ name: string; sha256: string; bytes: Uint8Array }> {
    await this.access(accountId, projectId, 'read');
    const row = await this.imageRow(projectId, imageId);
    return { name: row.name, sha256: row.digest, bytes: await this.blob(row) };
  }

  /**
   * The image's thumbnail, under the same access as its file. `tag` names the file and the rendering
   * and is known before anything is rendered, so a caller holding it can be answered at once.
   */
  async imageThumbnail(accountId: string, projectId: string, imageId: string): Promise<{ tag: string; render: () => Promise<Buffer> }> {
    await this.access(accountId, projectId, 'read');
    const row = await this.imageRow(projectId, imageId);
    const render = () =>
      this.thumbnails.get(thumbnailKey(projectId, row.digest), () => this.blob(row)).catch((error: unknown) => {
        throw new DomainError('invalid-image', `the stored file does not decode: ${error instanceof Error ? error.message : String(error)}`);
      });
    return { tag: `${row.digest}.${THUMBNAIL_VARIANT}`, render };
  }

  async deleteImage(accountId: string, projectId: string, imageId: string): Promise<void> {
    await this.access(accountId, projectId, 'delete-image');
    const remover = await this.emailOf(accountId);
    const deleted = await this.db.transaction(async (trx) => {
      const result = await trx.deleteFrom('project_images').where('id', '=', imageId).where('project_id', '=', projectId).executeTakeFirst();
      if (Number(result.numDeletedRows) > 0) await this.options.events?.record(trx, projectId, [{ type: 'image-removed', imageId, changedBy: remover }]);
      return result;
    });
    if (Number(deleted.numDeletedRows) === 0) throw new DomainError('not-found', 'no such image in this project');
    this.options.events?.wake(projectId);
  }

  /** Who made a change, as the project's events name them. */
  private async emailOf(accountId: string): Promise<string | null> {
    const account = await this.db.kysely.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirst();
    return account?.email ?? null;
  }

  private async storedAnnotations(row: ProjectImagesTable): Promise<StoredAnnotations> {
    const by = row.updated_by ? await this.db.kysely.selectFrom('accounts').select('email').where('id', '=', row.updated_by).executeTakeFirst() : undefined;
    return { imageId: row.id, revision: row.revision, objectsJson: row.objects, updatedBy: by?.email ?? null, updatedAt: iso(row.updated_at) };
  }

  async readAnnotations(accountId: string, projectId: string, imageId: string): Promise<StoredAnnotations> {
    await this.access(accountId, projectId, 'read');
    return this.storedAnnotations(await this.imageRowWithObjects(projectId, imageId));
  }

  /** Every image's annotations in one read, in the order of `listImages`. */
  async allAnnotations(accountId: string, projectId: string): Promise<StoredAnnotations[]> {
    await this.access(accountId, projectId, 'read');
    const rows = await this.db.kysely
      .selectFrom('project_images')
      .leftJoin('accounts', 'accounts.id', 'project_images.updated_by')
      .select(['project_images.id', 'project_images.revision', 'project_images.objects', 'project_images.updated_at', 'accounts.email'])
      .where('project_images.project_id', '=', projectId)
      .orderBy('project_images.created_at')
      .orderBy('project_images.id')
      .execute();
    return rows.map((row) => ({ imageId: row.id, revision: row.revision, objectsJson: row.objects, updatedBy: row.email ?? null, updatedAt: iso(row.updated_at) }));
  }

  /**
   * Replaces the image's objects if it is still at the revision the request names: one conditional
   * UPDATE, so of two writers on the same revision exactly one succeeds, in any number of processes.
   * The other gets 409 `revision-conflict` with the annotations as stored, to merge into and write
   * again. The body arrives as bytes: a large write is parsed, validated, stamped and committed in a
   * worker thread (annotationCommit.ts), and its objects come back as bytes the route sends as they
   * are, so it does not stall other requests.
   */
  async writeAnnotations(accountId: string, projectId: string, imageId: string, request: { body: Uint8Array; ifMatchRevision?: number }): Promise<AnnotationsAsStored> {
    const { project, role } = await this.access(accountId, projectId, 'annotate');
    // Not the stored objects themselves: a large image's are read by the thread that does the write.
    const image = await this.db.kysely
      .selectFrom('project_images')
      .select(['width', 'height', sql<number>`length(objects)`.as('stored_chars')])
      .where('id', '=', imageId)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    if (!image) throw new DomainError('not-found', 'no such image in this project');
    const writer = await this.db.kysely.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirstOrThrow();
    const write: AnnotationWriteJob = {
      ...request,
      projectId,
      imageId,
      image: { width: image.width, height: image.height },
      classIds: (JSON.parse(project.classes) as ProjectClass[]).map((c) => c.id),
      writer: { accountId, email: writer.email, role },
      now: this.clock.now(),
    };
    const events = this.options.events;
    const outcome = await this.options.writeAnnotations({ write, database: this.db.location, recordEvent: events !== undefined }, Number(image.stored_chars), (here) =>
      commitAnnotationWrite(this.db, events, here),
    );
    if (!outcome.written) {
      const { current } = outcome;
      throw new DomainError('revision-conflict', `the annotations are at revision ${current.revision}, not ${outcome.askedRevision}`, {
        members: { currentRevision: current.revision },
        rawMembers: { current: annotationsJsonBytes(current) },
        headers: { ETag: `"${current.revision}"` },
      });
    }
    events?.wake(projectId);
    return outcome.annotations;
  }

  async listMembers(accountId: string, projectId: string): Promise<Array<{ email: string; role: ProjectRole; addedAt: string | null; invited?: boolean }>> {
    const { project } = await this.access(accountId, projectId, 'read');
    const owner = await this.db.kysely.selectFrom('accounts').select('email').where('id', '=', project.owner_id).executeTakeFirstOrThrow();
    const members = await this.db.kysely
      .selectFrom('project_members')
      .innerJoin('accounts', 'accounts.id', 'project_members.account_id')
      .select(['accounts.email', 'project_members.role', 'project_members.added_at', 'project_members.joined_at'])
      .where('project_id', '=', projectId)
      .orderBy('project_members.added_at')
      .execute();
    return [
      { email: owner.email, role: 'owner', addedAt: null },
      ...members.map((m) => ({ email: m.email, role: m.role, addedAt: iso(m.added_at), ...(m.joined_at === null ? { invited: true } : {}) })),
    ];
  }

  /** Adds or changes a member. An email with no account is 404, like a project one cannot see: the owner learns nothing more than "not found". */
  async addMember(accountId: string, projectId: string, email: string, role: MemberRole): Promise<{ email: string; role: MemberRole; addedAt: string | null; created: boolean }> {
    const { project } = await this.access(accountId, projectId, 'manage-members');
    const member = await this.db.kysely.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirst();
    if (!member) throw new DomainError('not-found', 'no account with this email');
    if (member.id === project.owner_id) throw new DomainError('validation-failed', 'the owner is a member already', { errors: [{ path: 'email', message: 'the owner is a member already' }] });
    return this.db.transaction(async (trx) => {
      const had = await trx.selectFrom('project_members').select(['role', 'added_at']).where('project_id', '=', projectId).where('account_id', '=', member.id).executeTakeFirst();
      const addedAt = had ? Number(had.added_at) : this.clock.now();
      if (had) await trx.updateTable('project_members').set({ role }).where('project_id', '=', projectId).where('account_id', '=', member.id).execute();
      // A new member is invited: the project shows to them once they join (POST …/join).
      else await trx.insertInto('project_members').values({ project_id: projectId, account_id: member.id, role, added_at: addedAt, joined_at: null }).execute();
      return { email, role, addedAt: iso(addedAt), created: !had };
    });
  }

  async removeMember(accountId: string, projectId: string, email: string): Promise<void> {
    await this.access(accountId, projectId, 'manage-members');
    const member = await this.db.kysely.selectFrom('accounts').select('id').where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
    const removed = member
      ? await this.db.kysely.deleteFrom('project_members').where('project_id', '=', projectId).where('account_id', '=', member.id).executeTakeFirst()
      : undefined;
    if (!removed || Number(removed.numDeletedRows) === 0) throw new DomainError('not-found', 'no such member');
  }

  /** Projects the account was invited to and has not joined. */
  async invitations(accountId: string): Promise<Array<{ projectId: string; projectName: string; owner: string; role: MemberRole; invitedAt: string }>> {
    const rows = await this.db.kysely
      .selectFrom('project_members')
      .innerJoin('projects', 'projects.id', 'project_members.project_id')
      .innerJoin('accounts as owner', 'owner.id', 'projects.owner_id')
      .select(['projects.id', 'projects.name', 'owner.email', 'project_members.role', 'project_members.added_at'])
      .where('project_members.account_id', '=', accountId)
      .where('project_members.joined_at', 'is', null)
      .orderBy('project_members.added_at')
      .execute();
    return rows.map((r) => ({ projectId: r.id, projectName: r.name, owner: r.email, role: r.role, invitedAt: iso(r.added_at)! }));
  }

  /**
   * Accepts an invitation. Joining again, or the owner joining, answers the project as they see it;
   * without an invitation it stays 404.
   */
  async join(accountId: string, projectId: string): Promise<Project> {
    await this.db.kysely
      .updateTable('project_members')
      .set({ joined_at: this.clock.now() })
      .where('project_id', '=', projectId)
      .where('account_id', '=', accountId)
      .where('joined_at', 'is', null)
      .execute();
    return this.get(accountId, projectId);
  }

  /** The owner assigns an image to a member who has joined (or unassigns it with null). */
  async assignImage(accountId: string, projectId: string, imageId: string, assigneeEmail: string | null): Promise<ProjectImage> {
    const { project } = await this.access(accountId, projectId, 'assign');
    await this.imageRow(projectId, imageId);
    let assigneeId: string | null = null;
    if (assigneeEmail !== null) {
      const account = await this.db.kysely.selectFrom('accounts').select('id').where('email', '=', assigneeEmail).executeTakeFirst();
      const isMember =
        account &&
        (account.id === project.owner_id ||
          (await this.db.kysely.selectFrom('project_members').select('role').where('project_id', '=', projectId).where('account_id', '=', account.id).where('joined_at', 'is not', null).executeTakeFirst()));
      if (!account || !isMember) throw new DomainError('validation-failed', 'the assignee is not a member of this project', { errors: [{ path: 'assignee', message: 'not a member of this project' }] });
      assigneeId = account.id;
    }
    await this.db.kysely.updateTable('project_images').set({ assignee_id: assigneeId }).where('id', '=', imageId).where('project_id', '=', projectId).execute();
    const image = (await this.listImages(accountId, projectId)).find((i) => i.id === imageId);
    if (!image) throw new DomainError('not-found', 'no such image in this project');
    return image;
  }

  /**
   * Everything an export needs, read as the caller may see it, but the images' objects: the export
   * worker reads those from the database itself (exports/storedObjects.ts), so they are neither
   * read nor copied on the event loop. A project past the vertex limit is refused (413) before any work.
   */
  async dataset(accountId: string, projectId: string): Promise<ProjectDatasetSource> {
    const { project, role } = await this.access(accountId, projectId, 'export');
    const total = await this.db.kysely
      .selectFrom('project_images')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('vertex_count'), eb.lit(0)).as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    checkProjectVertices(Number(total.n));
    return { project: await this.view(project, role), images: await this.listImages(accountId, projectId), database: this.db.location };
  }
}

/**
 * Thumbnails are cached per project, not per file: a file another account uploaded earlier must not
 * make this account's thumbnail answer sooner (that would tell it the file is on the server).
 */
const thumbnailKey = (projectId: string, digest: string) => `${projectId}/${digest}`;
