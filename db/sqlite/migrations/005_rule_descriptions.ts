/**
 * Migration 4: every policy rule has a `description` (the spec requires it; issue 22). Rules
 * stored before it was required get `""`, the value a replay of their log entry gives
 * (`normalizePolicy`). Only the record text changes: its version, and the audit log, stay.
 */
export const RULE_DESCRIPTIONS_SCHEMA = `
UPDATE registry_bots SET record = json_set(record, '$.policy.rules', json((
  SELECT json_group_array(json(CASE WHEN json_type(r.value, '$.description') IS NULL
    THEN json_insert(r.value, '$.description', '') ELSE r.value END) ORDER BY r.key)
  FROM json_each(registry_bots.record, '$.policy.rules') AS r
)))
WHERE EXISTS (
  SELECT 1 FROM json_each(registry_bots.record, '$.policy.rules') AS r
  WHERE json_type(r.value, '$.description') IS NULL
);
`;
