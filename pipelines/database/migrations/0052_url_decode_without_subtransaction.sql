-- An exception block is a subtransaction, which PostgreSQL refuses anywhere in a parallel query
-- (0051 was not enough). url_decode becomes plain SQL that checks the bytes are well-formed
-- UTF-8 before converting them (malformed runs stay as they were), so it is parallel safe again.
-- rule_matches keeps its exception block for invalid patterns: it only ever runs on the small
-- table of traffic sources, so it is simply marked parallel unsafe.
create or replace function staging.url_decode(value text) returns text
    language sql immutable strict parallel safe
as $$
    select coalesce(string_agg(
               case
                   when part[1] is null then part[2]
                   when lower(replace(part[1], '%', '')) ~ (
                       '^(0[1-9a-f]|[1-7][0-9a-f]'
                       || '|(c[2-9a-f]|d[0-9a-f])[89ab][0-9a-f]'
                       || '|e0[ab][0-9a-f][89ab][0-9a-f]|(e[1-9a-ce-f][89ab][0-9a-f]|ed[89][0-9a-f])[89ab][0-9a-f]'
                       || '|(f0[9ab][0-9a-f]|f[1-3][89ab][0-9a-f]|f48[0-9a-f])[89ab][0-9a-f][89ab][0-9a-f])+$')
                       then convert_from(decode(replace(part[1], '%', ''), 'hex'), 'UTF8')
                   else part[1]
               end,
               '' order by ordinal), '')
      from regexp_matches(value, '((?:%[0-9A-Fa-f]{2})+)|([^%]+|%)', 'g') with ordinality as matches(part, ordinal)
$$;

alter function staging.rule_matches(text, text) parallel unsafe;
