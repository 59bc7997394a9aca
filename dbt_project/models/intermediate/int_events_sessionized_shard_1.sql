{#- The visitors of shard 1 of int_events_sessionized (see macros/sessionization.sql). -#}
{{ sessionized_events(shard=1) }}
