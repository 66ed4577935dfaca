-- API keys, stored hashed: key_hash is SHA-256 or HMAC-SHA-256 of the key (64 hex digits), never the key.
-- {s} is the schema prefix ("schema". or nothing).
CREATE TABLE {s}sluice_api_keys (
    key_hash     TEXT        NOT NULL PRIMARY KEY,
    key_id       TEXT        NOT NULL UNIQUE,
    plan         TEXT        NOT NULL,
    renewal_day  INTEGER     NOT NULL DEFAULT 0 CHECK (renewal_day BETWEEN 0 AND 31),
    overrides    JSONB       NOT NULL DEFAULT '{}'::jsonb,
    warning_destination  TEXT,
    label        TEXT,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at   TIMESTAMPTZ
);

-- every change, whoever makes it (the admin API or psql), tells the edges: channel sluice_keys,
-- payload "<schema>:<key_hash>"
CREATE FUNCTION {s}sluice_api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('sluice_keys', TG_TABLE_SCHEMA || ':' || OLD.key_hash);
        RETURN OLD;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        NEW.updated_at := now();
    END IF;
    PERFORM pg_notify('sluice_keys', TG_TABLE_SCHEMA || ':' || NEW.key_hash);
    RETURN NEW;
END
$$;

CREATE TRIGGER sluice_api_keys_notify BEFORE INSERT OR UPDATE OR DELETE ON {s}sluice_api_keys
    FOR EACH ROW EXECUTE FUNCTION {s}sluice_api_keys_changed();
