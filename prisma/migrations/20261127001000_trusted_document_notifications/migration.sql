-- Trusted-document changes reach every server through the change feed (src/db/change-feed.ts), like
-- token and project changes: a commit that switches a project's enforcement or changes its manifest's
-- documents sends NOTIFY on "cms_changes" with payload `t:<project>`. Servers drop what they remember
-- of that project's manifest (src/persisted/memory.ts) and nothing else: the project's cached
-- authentications stay. A server that does not know this payload treats it as "forget everything".
--
-- Replacing a manifest deletes and inserts up to thousands of document rows in one statement each,
-- so the documents table notifies once per statement (from its transition tables), not once per row.
-- PostgreSQL allows one event per trigger with transition tables, hence three triggers.

CREATE FUNCTION "cms_notify_trusted_documents_x"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'trusted_document_manifests' THEN
    IF TG_OP = 'DELETE' THEN
      PERFORM pg_notify('cms_changes', 't:' || OLD.project_id);
    ELSE
      PERFORM pg_notify('cms_changes', 't:' || NEW.project_id);
      IF TG_OP = 'UPDATE' AND OLD.project_id <> NEW.project_id THEN
        PERFORM pg_notify('cms_changes', 't:' || OLD.project_id);
      END IF;
    END IF;
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM pg_notify('cms_changes', 't:' || p) FROM (SELECT DISTINCT project_id AS p FROM new_documents) s;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('cms_changes', 't:' || p) FROM (SELECT DISTINCT project_id AS p FROM old_documents) s;
  ELSE
    PERFORM pg_notify('cms_changes', 't:' || p)
      FROM (SELECT project_id AS p FROM old_documents UNION SELECT project_id FROM new_documents) s;
  END IF;
  RETURN NULL;
END
$$;

-- updated_at moves on every replacement, also when nothing a request answers from changed.
CREATE TRIGGER "trusted_document_manifests_notify_change_x" AFTER INSERT OR DELETE OR UPDATE OF "project_id", "enforced" ON "trusted_document_manifests"
  FOR EACH ROW EXECUTE FUNCTION "cms_notify_trusted_documents_x"();

CREATE TRIGGER "trusted_documents_notify_insert_x" AFTER INSERT ON "trusted_documents"
  REFERENCING NEW TABLE AS new_documents FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_trusted_documents_x"();
CREATE TRIGGER "trusted_documents_notify_delete_x" AFTER DELETE ON "trusted_documents"
  REFERENCING OLD TABLE AS old_documents FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_trusted_documents_x"();
CREATE TRIGGER "trusted_documents_notify_update_x" AFTER UPDATE ON "trusted_documents"
  REFERENCING OLD TABLE AS old_documents NEW TABLE AS new_documents FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_trusted_documents_x"();

CREATE TRIGGER "trusted_document_manifests_notify_truncate_x" AFTER TRUNCATE ON "trusted_document_manifests" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
CREATE TRIGGER "trusted_documents_notify_truncate_x" AFTER TRUNCATE ON "trusted_documents" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
