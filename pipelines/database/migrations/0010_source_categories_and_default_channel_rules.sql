-- Source categories (search, social, shopping, video, email) used by channel rules, and GA4's
-- default channel group as data. Every new site receives a copy of the default rules and its
-- rules version row (trigger below), however the site is created (API, demo data, tests).
--
-- Matching convention for the pipeline: rules apply in `position` order, first match wins; each
-- non-null pattern is matched case-insensitively (~*) against the visit's source, medium or
-- campaign, with a missing value compared as the empty string ''; `source_category` matches the
-- category of the lower-cased source in collect.source_categories; all non-null conditions of a
-- row must hold. Consecutive rows with the same channel express GA4's "or" conditions.

insert into collect.source_categories (source, category) values
    -- search engines
    ('google', 'search'), ('google.com', 'search'), ('www.google.com', 'search'), ('google.co.uk', 'search'),
    ('www.google.co.uk', 'search'), ('google.fr', 'search'), ('www.google.fr', 'search'), ('google.de', 'search'),
    ('www.google.de', 'search'), ('google.es', 'search'), ('www.google.es', 'search'), ('google.it', 'search'),
    ('www.google.it', 'search'), ('google.ca', 'search'), ('www.google.ca', 'search'), ('google.com.au', 'search'),
    ('www.google.com.au', 'search'), ('google.co.jp', 'search'), ('www.google.co.jp', 'search'),
    ('google.com.br', 'search'), ('www.google.com.br', 'search'), ('google.nl', 'search'), ('www.google.nl', 'search'),
    ('google.be', 'search'), ('www.google.be', 'search'), ('google.ch', 'search'), ('www.google.ch', 'search'),
    ('bing', 'search'), ('bing.com', 'search'), ('www.bing.com', 'search'), ('cn.bing.com', 'search'),
    ('yahoo', 'search'), ('yahoo.com', 'search'), ('search.yahoo.com', 'search'), ('yahoo.co.jp', 'search'),
    ('search.yahoo.co.jp', 'search'), ('duckduckgo', 'search'), ('duckduckgo.com', 'search'),
    ('baidu', 'search'), ('baidu.com', 'search'), ('www.baidu.com', 'search'), ('m.baidu.com', 'search'),
    ('yandex', 'search'), ('yandex.ru', 'search'), ('yandex.com', 'search'), ('ya.ru', 'search'),
    ('ecosia', 'search'), ('ecosia.org', 'search'), ('www.ecosia.org', 'search'),
    ('qwant', 'search'), ('qwant.com', 'search'), ('www.qwant.com', 'search'), ('lite.qwant.com', 'search'),
    ('startpage', 'search'), ('startpage.com', 'search'), ('www.startpage.com', 'search'),
    ('brave', 'search'), ('search.brave.com', 'search'), ('naver', 'search'), ('naver.com', 'search'),
    ('search.naver.com', 'search'), ('seznam', 'search'), ('seznam.cz', 'search'), ('search.seznam.cz', 'search'),
    ('ask', 'search'), ('ask.com', 'search'), ('aol', 'search'), ('search.aol.com', 'search'),
    ('sogou', 'search'), ('sogou.com', 'search'), ('so.com', 'search'), ('daum', 'search'), ('daum.net', 'search'),
    ('search.daum.net', 'search'), ('ecosia.com', 'search'), ('kagi', 'search'), ('kagi.com', 'search'),
    ('perplexity', 'search'), ('perplexity.ai', 'search'), ('www.perplexity.ai', 'search'),
    ('chatgpt.com', 'search'), ('mojeek', 'search'), ('mojeek.com', 'search'), ('lilo.org', 'search'),
    ('search.lilo.org', 'search'), ('yep.com', 'search'), ('metager.de', 'search'), ('onet.pl', 'search'),
    ('wp.pl', 'search'), ('rambler.ru', 'search'), ('petalsearch.com', 'search'),
    -- social networks
    ('facebook', 'social'), ('facebook.com', 'social'), ('www.facebook.com', 'social'), ('m.facebook.com', 'social'),
    ('l.facebook.com', 'social'), ('lm.facebook.com', 'social'), ('fb', 'social'), ('fb.com', 'social'),
    ('instagram', 'social'), ('instagram.com', 'social'), ('www.instagram.com', 'social'),
    ('l.instagram.com', 'social'), ('ig', 'social'), ('twitter', 'social'), ('twitter.com', 'social'),
    ('t.co', 'social'), ('x', 'social'), ('x.com', 'social'), ('linkedin', 'social'), ('linkedin.com', 'social'),
    ('www.linkedin.com', 'social'), ('lnkd.in', 'social'), ('pinterest', 'social'), ('pinterest.com', 'social'),
    ('www.pinterest.com', 'social'), ('pin.it', 'social'), ('reddit', 'social'), ('reddit.com', 'social'),
    ('www.reddit.com', 'social'), ('old.reddit.com', 'social'), ('out.reddit.com', 'social'),
    ('tiktok', 'social'), ('tiktok.com', 'social'), ('www.tiktok.com', 'social'), ('snapchat', 'social'),
    ('snapchat.com', 'social'), ('threads', 'social'), ('threads.net', 'social'), ('www.threads.net', 'social'),
    ('mastodon', 'social'), ('mastodon.social', 'social'), ('bsky', 'social'), ('bsky.app', 'social'),
    ('tumblr', 'social'), ('tumblr.com', 'social'), ('www.tumblr.com', 'social'), ('quora', 'social'),
    ('quora.com', 'social'), ('www.quora.com', 'social'), ('vk', 'social'), ('vk.com', 'social'),
    ('ok.ru', 'social'), ('weibo', 'social'), ('weibo.com', 'social'), ('wechat', 'social'),
    ('whatsapp', 'social'), ('whatsapp.com', 'social'), ('web.whatsapp.com', 'social'), ('telegram', 'social'),
    ('t.me', 'social'), ('telegram.org', 'social'), ('discord', 'social'), ('discord.com', 'social'),
    ('slack', 'social'), ('slack.com', 'social'), ('messenger', 'social'), ('messenger.com', 'social'),
    ('line', 'social'), ('line.me', 'social'), ('xing', 'social'), ('xing.com', 'social'),
    ('news.ycombinator.com', 'social'), ('medium.com', 'social'), ('github.com', 'social'),
    ('stackoverflow.com', 'social'), ('meetup.com', 'social'), ('flickr.com', 'social'), ('yelp.com', 'social'),
    ('tripadvisor.com', 'social'),
    -- shopping
    ('amazon', 'shopping'), ('amazon.com', 'shopping'), ('www.amazon.com', 'shopping'), ('amazon.co.uk', 'shopping'),
    ('amazon.fr', 'shopping'), ('www.amazon.fr', 'shopping'), ('amazon.de', 'shopping'), ('www.amazon.de', 'shopping'),
    ('amazon.es', 'shopping'), ('amazon.it', 'shopping'), ('ebay', 'shopping'), ('ebay.com', 'shopping'),
    ('www.ebay.com', 'shopping'), ('ebay.co.uk', 'shopping'), ('ebay.fr', 'shopping'), ('ebay.de', 'shopping'),
    ('etsy', 'shopping'), ('etsy.com', 'shopping'), ('www.etsy.com', 'shopping'), ('shopify', 'shopping'),
    ('shopify.com', 'shopping'), ('shop.app', 'shopping'), ('walmart', 'shopping'), ('walmart.com', 'shopping'),
    ('aliexpress', 'shopping'), ('aliexpress.com', 'shopping'), ('alibaba', 'shopping'), ('alibaba.com', 'shopping'),
    ('rakuten', 'shopping'), ('rakuten.com', 'shopping'), ('rakuten.fr', 'shopping'), ('cdiscount', 'shopping'),
    ('cdiscount.com', 'shopping'), ('zalando', 'shopping'), ('zalando.com', 'shopping'), ('zalando.fr', 'shopping'),
    ('zalando.de', 'shopping'), ('target.com', 'shopping'), ('bestbuy.com', 'shopping'), ('idealo', 'shopping'),
    ('idealo.de', 'shopping'), ('idealo.fr', 'shopping'), ('google shopping', 'shopping'),
    ('shopping.google.com', 'shopping'), ('mercadolibre', 'shopping'), ('mercadolibre.com', 'shopping'),
    ('temu', 'shopping'), ('temu.com', 'shopping'), ('wish', 'shopping'), ('wish.com', 'shopping'),
    ('bol.com', 'shopping'), ('allegro', 'shopping'), ('allegro.pl', 'shopping'), ('otto.de', 'shopping'),
    ('fnac', 'shopping'), ('fnac.com', 'shopping'), ('kelkoo', 'shopping'), ('kelkoo.com', 'shopping'),
    ('pricerunner', 'shopping'), ('pricerunner.com', 'shopping'), ('leboncoin', 'shopping'),
    ('leboncoin.fr', 'shopping'),
    -- video
    ('youtube', 'video'), ('youtube.com', 'video'), ('www.youtube.com', 'video'), ('m.youtube.com', 'video'),
    ('youtu.be', 'video'), ('vimeo', 'video'), ('vimeo.com', 'video'), ('dailymotion', 'video'),
    ('dailymotion.com', 'video'), ('www.dailymotion.com', 'video'), ('twitch', 'video'), ('twitch.tv', 'video'),
    ('www.twitch.tv', 'video'), ('netflix', 'video'), ('netflix.com', 'video'), ('wistia', 'video'),
    ('wistia.com', 'video'), ('bilibili', 'video'), ('bilibili.com', 'video'), ('rumble', 'video'),
    ('rumble.com', 'video'), ('peertube', 'video'), ('disneyplus', 'video'), ('disneyplus.com', 'video'),
    ('primevideo', 'video'), ('primevideo.com', 'video'), ('hulu', 'video'), ('hulu.com', 'video'),
    ('iqiyi', 'video'), ('iqiyi.com', 'video'), ('youku', 'video'), ('youku.com', 'video'),
    -- email services (webmail referrers and common utm_source values)
    ('mail.google.com', 'email'), ('gmail', 'email'), ('gmail.com', 'email'), ('outlook.live.com', 'email'),
    ('outlook.office.com', 'email'), ('outlook.office365.com', 'email'), ('outlook', 'email'),
    ('mail.yahoo.com', 'email'), ('mail.aol.com', 'email'), ('mail.proton.me', 'email'), ('proton.me', 'email'),
    ('mail.yandex.ru', 'email'), ('e.mail.ru', 'email'), ('mail.ru', 'email'), ('webmail', 'email'),
    ('mailchimp', 'email'), ('newsletter', 'email'), ('sendinblue', 'email'), ('brevo', 'email'),
    ('mailjet', 'email'), ('klaviyo', 'email'), ('hubspot', 'email'), ('substack', 'email'),
    ('substack.com', 'email'), ('mail.zoho.com', 'email'), ('icloud.com', 'email'), ('www.icloud.com', 'email');

-- GA4's default channel group, in evaluation order.
create table collect.default_channel_rules (
    position         integer primary key,
    channel          text    not null,
    source_pattern   text,
    medium_pattern   text,
    campaign_pattern text,
    source_category  text check (source_category in ('search', 'social', 'shopping', 'video', 'email'))
);

insert into collect.default_channel_rules (position, channel, source_pattern, medium_pattern, campaign_pattern, source_category) values
    ( 1, 'Direct',                    '^(\(direct\))?$',                      '^(\(not set\)|\(none\))?$', null, null),
    ( 2, 'Cross-network',             null, null, 'cross-network', null),
    ( 3, 'Paid Shopping',             null, '^(.*cp.*|ppc|retargeting|paid.*)$', null, 'shopping'),
    ( 4, 'Paid Shopping',             null, '^(.*cp.*|ppc|retargeting|paid.*)$', '^(.*(([^a-df-z]|^)shop|shopping).*)$', null),
    ( 5, 'Paid Search',               null, '^(.*cp.*|ppc|retargeting|paid.*)$', null, 'search'),
    ( 6, 'Paid Social',               null, '^(.*cp.*|ppc|retargeting|paid.*)$', null, 'social'),
    ( 7, 'Paid Video',                null, '^(.*cp.*|ppc|retargeting|paid.*)$', null, 'video'),
    ( 8, 'Display',                   null, '^(display|banner|expandable|interstitial|cpm)$', null, null),
    ( 9, 'Paid Other',                null, '^(.*cp.*|ppc|retargeting|paid.*)$', null, null),
    (10, 'Organic Shopping',          null, null, null, 'shopping'),
    (11, 'Organic Shopping',          null, null, '^(.*(([^a-df-z]|^)shop|shopping).*)$', null),
    (12, 'Organic Social',            null, null, null, 'social'),
    (13, 'Organic Social',            null, '^(social|social-network|social-media|sm|social network|social media)$', null, null),
    (14, 'Organic Video',             null, null, null, 'video'),
    (15, 'Organic Video',             null, '^(.*video.*)$', null, null),
    (16, 'Organic Search',            null, null, null, 'search'),
    (17, 'Organic Search',            null, '^organic$', null, null),
    (18, 'Referral',                  null, '^(referral|app|link)$', null, null),
    (19, 'Email',                     '^(email|e-mail|e_mail|e mail)$', null, null, null),
    (20, 'Email',                     null, '^(email|e-mail|e_mail|e mail)$', null, null),
    (21, 'Email',                     null, null, null, 'email'),
    (22, 'Affiliates',                null, '^affiliate$', null, null),
    (23, 'Audio',                     null, '^audio$', null, null),
    (24, 'SMS',                       '^sms$', null, null, null),
    (25, 'SMS',                       null, '^sms$', null, null),
    (26, 'Mobile Push Notifications', null, '(push$|mobile|notification)', null, null),
    (27, 'Mobile Push Notifications', '^firebase$', null, null, null),
    (28, 'Unassigned',                null, null, null, null);

comment on table collect.default_channel_rules is
    'GA4 default channel group; copied into collect.channel_rules for each new site and on reset.';

create function collect.seed_site_channel_rules() returns trigger language plpgsql as $$
begin
    insert into collect.channel_rules (site_id, position, channel, source_pattern, medium_pattern,
                                       campaign_pattern, source_category)
    select new.site_id, position, channel, source_pattern, medium_pattern, campaign_pattern, source_category
      from collect.default_channel_rules;
    insert into collect.channel_rules_versions (site_id) values (new.site_id);
    return null;
end;
$$;

create trigger sites_seed_channel_rules after insert on collect.sites
    for each row execute function collect.seed_site_channel_rules();
