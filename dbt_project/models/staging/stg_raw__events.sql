with source as (

    select * from {{ source('raw', 'events') }}

),

renamed as (

    select
        event_id,
        site_id,
        occurred_at,
        received_at,
        source as received_via,
        event_type,
        event_name,
        visitor_kind,
        visitor_id,
        user_id,
        page_id,
        url,
        lower(hostname) as hostname,
        coalesce(nullif(path, ''), '/') as path,
        referrer,
        lower(coalesce(referrer_host, {{ regex_capture('referrer', '^[A-Za-z][A-Za-z0-9+.-]*://([^/:?#]+)') }})) as referrer_host,
        title,
        {{ normalise_campaign_value('utm_source') }} as utm_source,
        {{ normalise_campaign_value('utm_medium') }} as utm_medium,
        {{ normalise_campaign_value('utm_campaign') }} as utm_campaign,
        {{ normalise_campaign_value('utm_term') }} as utm_term,
        {{ normalise_campaign_value('utm_content') }} as utm_content,
        lower(click_id_kind) as click_id_kind,
        language,
        country,
        browser,
        os,
        device_class,
        screen_class,
        props,
        items,
        coalesce(transaction_id, {{ json_text('props', 'transaction_id') }}) as transaction_id,
        coalesce(
            revenue,
            {{ json_number('props', 'value') }}
        ) as revenue,
        upper(coalesce(currency, {{ json_text('props', 'currency') }})) as currency
    from source

),

traffic as (

    select
        *,
        -- A referrer on the site itself is navigation, not a source.
        case
            when referrer_host is not null and referrer_host <> coalesce(hostname, '')
                then {{ registrable_host('referrer_host') }}
        end as referrer_domain
    from renamed

),

final as (

    select
        *,
        -- One key per person as far as the site lets us know them; the identifiers themselves
        -- are hashed so that the key never spells a user id. Collation "C": a hex digest sorts
        -- the same in every collation, and byte order is several times cheaper to sort and index
        -- (sessionization sorts every event by it).
        md5(case
            when user_id is not null then 'user:' || user_id
            when visitor_id is not null then visitor_kind || ':' || visitor_id
            else 'event:' || {{ text_of('event_id') }}
        end) {{ byte_order() }} as visitor_key,
        coalesce(
            utm_source,
            case click_id_kind when 'gclid' then 'google' when 'msclkid' then 'bing' end,
            referrer_domain,
            '(direct)'
        ) as traffic_source,
        case
            when utm_source is not null or utm_medium is not null then coalesce(utm_medium, '(not set)')
            when click_id_kind in ('gclid', 'msclkid') then 'cpc'
            when referrer_domain is not null then 'referral'
            else '(none)'
        end as traffic_medium,
        utm_campaign as traffic_campaign
    from traffic

)

select * from final
