-- What an account is: a person, or the account an embedding secret runs its tokens as
-- (workbench_app/sharing/embedding_secrets.py). Embedding accounts are not people: they are left
-- out of the People list and the person pickers, and the users API refuses to change them (the
-- secret is changed or revoked instead).
alter table users add column kind text not null default 'person' check (kind in ('person', 'embedding'));
update users set kind = 'embedding' where user_id in (select account_id from embedding_secrets);
