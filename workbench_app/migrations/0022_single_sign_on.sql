-- Single sign-on with OpenID Connect (workbench_app/single_sign_on/).

-- One row at most (id = 1), set in the Settings screen; a null column falls back to the environment.
create table sso_provider (
    id                   smallint primary key default 1 check (id = 1),
    issuer               text,
    client_id            text,
    -- AES-256-GCM sealed (single_sign_on/configuration.py), never returned by the API.
    client_secret_sealed text,
    scopes               text,
    display_name         text,
    -- Claims mapping: which claim gives the e-mail, the name, the groups; which claims become
    -- attributes ({"claim": "attribute"}); directory group -> workbench group name.
    email_claim          text not null default 'email',
    name_claim           text not null default 'name',
    groups_claim         text not null default 'groups',
    attribute_claims     jsonb not null default '{}'::jsonb,
    group_mapping        jsonb not null default '{}'::jsonb,
    groups_by_name       boolean not null default true,
    create_accounts      boolean not null default true,
    -- Password sign-in for everyone, or only for the break-glass administrator's e-mail address.
    password_sign_in     boolean not null default true,
    break_glass_email    text,
    updated_at           timestamptz not null default now()
);
insert into sso_provider default values;

-- A sign-in under way: the `state` sent to the provider, with the nonce and PKCE verifier it must
-- come back with, bound to the browser that started it (SHA-256 of a cookie). Used once.
create table sso_sign_in_requests (
    state          text primary key,
    browser_hash   bytea not null,
    nonce          text not null,
    code_verifier  text not null,
    return_to      text not null default '/',
    created_at     timestamptz not null default now()
);

-- Which directory person an account is: the provider's (issuer, subject), stable across e-mail changes.
create table sso_identities (
    issuer   text not null,
    subject  text not null,
    user_id  bigint not null references users on delete cascade,
    primary key (issuer, subject)
);

-- Memberships that single sign-on gave: they follow the directory and go when it no longer lists them.
create table sso_group_grants (
    group_id bigint not null references groups on delete cascade,
    user_id  bigint not null references users on delete cascade,
    primary key (group_id, user_id)
);
