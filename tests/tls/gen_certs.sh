#!/bin/sh
# gen_certs.sh DIR - writes the certificates the tls tests use into DIR, with the openssl CLI:
#   ca.crt/ca.key            the test CA ("ringperf test CA")
#   other-ca.crt/other-ca.key a CA nobody trusts
#   server.crt/server.key    localhost + 127.0.0.1 + ::1, issued by ca
#   wronghost.crt            other.example only, same key, issued by ca
#   expired.crt              localhost, expired, same key, issued by ca
#   unknown.crt              localhost, same key, issued by other-ca
#   selfsigned.crt           localhost, same key, self-signed
#   client.crt/client.key    a client certificate issued by ca
#   client-other.crt/.key    a client certificate issued by other-ca
set -eu
dir=$1
cd "$dir"
newkey() {
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null
}
ca() { # name subject
    newkey "$1.key"
    openssl req -x509 -new -key "$1.key" -out "$1.crt" -subj "/CN=$2" -days 30 \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}
leaf() { # out key issuer days san eku cn
    printf 'subjectAltName=%s\nextendedKeyUsage=%s\nbasicConstraints=CA:FALSE\n' "$5" "$6" \
        > "$1.ext"
    openssl req -new -key "$2" -subj "/CN=$7" -out "$1.csr" 2>/dev/null
    openssl x509 -req -in "$1.csr" -CA "$3.crt" -CAkey "$3.key" -CAcreateserial -days "$4" \
        -extfile "$1.ext" -out "$1.crt" 2>/dev/null
    rm -f "$1.csr" "$1.ext"
}
ca ca "ringperf test CA"
ca other-ca "ringperf untrusted CA"
newkey server.key
local_san="DNS:localhost,IP:127.0.0.1,IP:::1"
leaf server server.key ca 30 "$local_san" serverAuth localhost
leaf wronghost server.key ca 30 "DNS:other.example" serverAuth other.example
leaf expired server.key ca -1 "$local_san" serverAuth localhost
leaf unknown server.key other-ca 30 "$local_san" serverAuth localhost
openssl req -x509 -new -key server.key -out selfsigned.crt -subj "/CN=localhost" -days 30 \
    -addext "subjectAltName=$local_san" 2>/dev/null
newkey client.key
leaf client client.key ca 30 "DNS:client.example" clientAuth "ringperf test client"
newkey client-other.key
leaf client-other client-other.key other-ca 30 "DNS:client.example" clientAuth "stranger"
