-- Releases (src/releases/, docs/releases.md): a named set of entries of one project to publish or
-- unpublish together, in one transaction. `status` also holds `scheduled` and `publish_at` the time a
-- scheduled release runs at. Items name their entry by UUID, not by a foreign key: an entry trashed or
-- deleted after it was added is reported when the release publishes, not silently dropped.
-- CreateTable
CREATE TABLE "releases" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "title" VARCHAR(255) NOT NULL,
    "description" TEXT,
    "status" VARCHAR(20) NOT NULL DEFAULT 'open',
    "publish_at" TIMESTAMPTZ(3),
    "published_at" TIMESTAMPTZ(3),
    "errors" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "releases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "release_items" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "release_id" INTEGER NOT NULL,
    "collection_id" INTEGER NOT NULL,
    "entry_uuid" UUID NOT NULL,
    "action" VARCHAR(20) NOT NULL,
    "locale" VARCHAR(20),
    "version" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "release_items_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "releases_uuid_key" ON "releases"("uuid");

-- CreateIndex
CREATE INDEX "releases_project_id_id_idx" ON "releases"("project_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "release_items_uuid_key" ON "release_items"("uuid");

-- CreateIndex
CREATE INDEX "release_items_collection_id_idx" ON "release_items"("collection_id");

-- CreateIndex
CREATE UNIQUE INDEX "release_items_release_id_entry_uuid_key" ON "release_items"("release_id", "entry_uuid");

-- AddForeignKey
ALTER TABLE "releases" ADD CONSTRAINT "releases_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "release_items" ADD CONSTRAINT "release_items_release_id_fkey" FOREIGN KEY ("release_id") REFERENCES "releases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "release_items" ADD CONSTRAINT "release_items_collection_id_fkey" FOREIGN KEY ("collection_id") REFERENCES "collections"("id") ON DELETE CASCADE ON UPDATE CASCADE;
