-- SQL functions the dbt models call. They live in the staging schema (created here, reused by
-- dbt) so that they exist before the first `dbt build`, including in dbt unit tests.
create schema if not exists staging;
comment on schema staging is 'dbt staging models: raw data renamed, typed and normalised. Not readable by analytics_reader.';
create schema if not exists intermediate;
comment on schema intermediate is 'dbt intermediate models: sessionization, channels, conversions, attribution touches.';
create schema if not exists marts;
comment on schema marts is 'dbt marts: facts and dimensions behind the analytics views.';

-- Percent-decoding of a URL parameter value. Malformed input (a lone %, bytes that are not
-- UTF-8) comes back unchanged rather than failing the whole build.
create function staging.url_decode(value text) returns text
    language plpgsql immutable strict parallel safe
as $$
declare
    decoded text;
begin
    if strpos(value, '%') = 0 then
        return value;
    end if;
    select string_agg(
               case when part[1] is not null
                    then convert_from(decode(replace(part[1], '%', ''), 'hex'), 'UTF8')
                    else part[2] end,
               '' order by ordinal)
      into decoded
      from regexp_matches(value, '((?:%[0-9A-Fa-f]{2})+)|([^%]+|%)', 'g') with ordinality as matches(part, ordinal);
    return decoded;
exception when others then
    return value;
end
$$;
comment on function staging.url_decode(text) is 'Percent-decodes a URL parameter value (UTF-8); malformed input is returned unchanged.';

-- Case-insensitive regular-expression match of a user-edited rule. A null pattern matches
-- anything; an invalid pattern matches nothing instead of breaking the channel model.
create function staging.rule_matches(value text, pattern text) returns boolean
    language plpgsql immutable parallel safe
as $$
begin
    if pattern is null then
        return true;
    end if;
    return coalesce(value, '') ~* pattern;
exception when invalid_regular_expression then
    return false;
end
$$;
comment on function staging.rule_matches(text, text) is 'Case-insensitive regex match of a channel rule pattern; null pattern matches all, invalid pattern matches none.';
