vcl 4.1;

# The optional CDN of docker-compose.yml (profile `edge`; docs/foundation.md, "Scaling out: the CDN").
# It keeps what the API marks for shared caches, the published reads of delivery tokens
# (`Cache-Control: public, s-maxage=…`), one copy per token and project, tagged by the API's
# `Surrogate-Key` header; the API purges those tags (EDGE_PURGE=varnish, VARNISH_PURGE_URLS) with
# `PURGE /` and an `xkey-softpurge` header. Everything else passes through to the API.

import std;
import xkey;

backend api {
    .host = "proxy";
    .port = "4000";
    # While the API answers, a purged answer is never served; when it does not, a kept copy is.
    .probe = {
        .url = "/healthz";
        .interval = 2s;
        .timeout = 1s;
        .window = 3;
        .threshold = 2;
        # Healthy from the start: the proxy waits for a ready API anyway.
        .initial = 2;
    }
}

# Who may purge: the API replicas on the compose network (and this host).
acl purgers {
    "127.0.0.1";
    "::1";
    "10.0.0.0"/8;
    "172.16.0.0"/12;
    "192.168.0.0"/16;
}

sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        if (req.http.xkey-softpurge) {
            set req.http.n-gone = xkey.softpurge(req.http.xkey-softpurge);
        } else if (req.http.xkey-purge) {
            set req.http.n-gone = xkey.purge(req.http.xkey-purge);
        } else {
            return (synth(400, "Name the tags in an xkey-softpurge header"));
        }
        return (synth(200, "Purged " + req.http.n-gone + " objects"));
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # Only token reads can be delivery reads; which are is the API's answer to say (vcl_backend_response).
    if (!req.http.Authorization || !req.http.project-id) {
        return (pass);
    }
    # A soft-purged copy is refetched before it is shown again; grace (stale-while-revalidate) is
    # used only while the API is unhealthy.
    if (std.healthy(req.backend_hint)) {
        set req.grace = 0s;
    }
    return (hash);
}

# Keyed on the token: a delivery token's answers are its own (scope, rate budget).
sub vcl_hash {
    hash_data(req.url);
    hash_data(req.http.project-id);
    hash_data(req.http.Authorization);
    return (lookup);
}

sub vcl_backend_response {
    if (beresp.http.Cache-Control !~ "(^|[ ,])public([ ,]|$)" || beresp.http.Cache-Control !~ "s-maxage=") {
        # Not a delivery read (another token, a draft, an error): every request goes to the API.
        set beresp.ttl = 120s;
        set beresp.uncacheable = true;
        return (deliver);
    }
    set beresp.http.xkey = beresp.http.Surrogate-Key;
    # Kept past its lifetime so a refetch revalidates with the strong ETag (a 304 sends no body).
    set beresp.keep = 1h;
    return (deliver);
}

sub vcl_deliver {
    unset resp.http.xkey;
    if (obj.hits > 0) {
        set resp.http.X-Edge-Cache = "HIT";
    } else {
        set resp.http.X-Edge-Cache = "MISS";
    }
}
