"""pypi_wheels.py: what the installers of build-aux share: a wheel from PyPI (or a
directory of wheels) checked against its pinned SHA-256, unpacking chosen
members of it, and the stamp that says a directory holds a set of pinned wheels.
A set of wheels is a list of (name on PyPI, version, wheel file, SHA-256)."""
import hashlib
import io
import json
import os
import sys
import urllib.request
import zipfile

STAMP = "installed-by-hspgemm"


def wheel_url(who, project, version, filename):
    """The download address of one wheel, from PyPI's simple index (its JSON form, PEP 691)."""
    request = urllib.request.Request(f"https://pypi.org/simple/{project}/",
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=60) as r:
        index = json.load(r)
    for f in index["files"]:
        if f["filename"] == filename:
            return f["url"]
    sys.exit(f"{who}: PyPI has no {filename} for {project} {version}")


def fetch(who, project, version, filename, sha256, wheels):
    """The bytes of one wheel, from the wheels directory or PyPI, checked."""
    if wheels:
        with open(os.path.join(wheels, filename), "rb") as f:
            data = f.read()
    else:
        print(f"{who}: downloading {filename}", flush=True)
        with urllib.request.urlopen(wheel_url(who, project, version, filename), timeout=600) as r:
            data = r.read()
    if hashlib.sha256(data).hexdigest() != sha256:
        sys.exit(f"{who}: {filename} does not have the pinned SHA-256")
    return data


def unpack(data, dest, target_of):
    """Write each member of a wheel for which target_of(member) gives a path
    (relative to dest) there; files under a lib/ are made executable."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for member in z.namelist():
            target = None if member.endswith("/") else target_of(member)
            if not target:
                continue
            path = os.path.join(dest, target)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with z.open(member) as src, open(path, "wb") as out:
                out.write(src.read())
            os.chmod(path, 0o755 if "/lib/" in member else 0o644)


def licence_target(member):
    """Where a wheel's licence file goes: licences/<wheel's first directory>/<name>."""
    parts = member.split("/")
    return os.path.join("licences", parts[0], parts[-1]) if "licen" in member.lower() else None


def link(dest, name, target):
    """dest/name, a symbolic link to target, made anew."""
    path = os.path.join(dest, name)
    if os.path.lexists(path):
        os.remove(path)
    os.symlink(target, path)


def pins(wheels):
    """The stamp's text: each wheel's file and SHA-256."""
    return "\n".join(w[2] + " " + w[3] for w in wheels) + "\n"


def installed(dest, wheels):
    """Does dest hold these wheels, installed by install_wheels and mark_installed?"""
    stamp = os.path.join(dest, STAMP)
    return os.path.exists(stamp) and open(stamp).read() == pins(wheels)


def install_wheels(who, wheels, dest, target_of, wheel_dir):
    """Fetch each wheel (from wheel_dir, or PyPI when None), check it and unpack it into dest."""
    os.makedirs(dest, exist_ok=True)
    for project, version, filename, sha256 in wheels:
        unpack(fetch(who, project, version, filename, sha256, wheel_dir), dest, target_of)


def mark_installed(dest, wheels):
    """Write the stamp that installed() reads."""
    with open(os.path.join(dest, STAMP), "w") as f:
        f.write(pins(wheels))
