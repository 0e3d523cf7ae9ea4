-- Trusted documents (src/persisted/operations.ts, docs/graphql.md "Trusted documents"): per project, the
-- GraphQL documents allowed to run (by sha256 of their text) and whether only those may run.
-- CreateTable
CREATE TABLE "trusted_document_manifests" (
    "project_id" INTEGER NOT NULL,
    "enforced" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "trusted_document_manifests_pkey" PRIMARY KEY ("project_id")
);

-- CreateTable
CREATE TABLE "trusted_documents" (
    "project_id" INTEGER NOT NULL,
    "hash" CHAR(64) NOT NULL,
    "document" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "trusted_documents_pkey" PRIMARY KEY ("project_id","hash")
);

-- AddForeignKey
ALTER TABLE "trusted_document_manifests" ADD CONSTRAINT "trusted_document_manifests_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "trusted_documents" ADD CONSTRAINT "trusted_documents_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

