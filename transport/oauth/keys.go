package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// signingKey is a private key with the JWS algorithm it signs with.
type signingKey struct {
	key crypto.Signer
	alg jose.SignatureAlgorithm
}

// parsePrivateKey reads a PEM private key (PKCS#8, SEC 1 EC or PKCS#1 RSA). Its
// errors never quote the key.
func parsePrivateKey(pemBytes []byte) (*signingKey, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("no PEM private key found")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, errors.New("the PEM block is not a readable private key")
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return &signingKey{k, jose.ES256}, nil
		case elliptic.P384():
			return &signingKey{k, jose.ES384}, nil
		case elliptic.P521():
			return &signingKey{k, jose.ES512}, nil
		}
		return nil, errors.New("unsupported elliptic curve (want P-256, P-384 or P-521)")
	case *rsa.PrivateKey:
		return &signingKey{k, jose.RS256}, nil
	case ed25519.PrivateKey:
		return &signingKey{k, jose.EdDSA}, nil
	}
	return nil, fmt.Errorf("unsupported key type %T", key)
}

// clientAssertion returns an RFC 7523 client assertion (private_key_jwt): a JWT
// issued by and about the client, for the authorization server aud.
func (k *signingKey) clientAssertion(clientID, aud string) (string, error) {
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", fmt.Errorf("client assertion: %w", err)
	}
	now := time.Now()
	claims := jwt.Claims{
		Issuer: clientID, Subject: clientID, Audience: jwt.Audience{aud},
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now.Add(-30 * time.Second)),
		Expiry: jwt.NewNumericDate(now.Add(5 * time.Minute)), ID: rand.Text(),
	}
	return jwt.Signed(sig).Claims(claims).Serialize()
}
