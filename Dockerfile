# Kifu dashboard image: ingests the bundled sample (or mount your own database at /data)
# and serves the dashboard on port 8501. Uploads are off (the server binds 0.0.0.0 inside the
# container) unless run with -e KIFU_UPLOAD=on or -e KIFU_UPLOAD_TOKEN=...; see docs/deploy.md.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    KIFU_DB=/data/kifu.duckdb

WORKDIR /opt/kifu

# A Japanese font (Noto Sans CJK JP) for what the container renders itself: screenshots taken inside it
# (scripts/screenshots.py) and any Japanese text drawn server side.
RUN apt-get -o DPkg::Lock::Timeout=600 update \
    && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends fonts-noto-cjk \
    && rm -rf /var/lib/apt/lists/*

# Dependencies first, for the layer cache.
COPY requirements.txt requirements.txt
RUN pip install -r requirements.txt

COPY pyproject.toml pyproject.toml
COPY README.md README.md
COPY common common
COPY referee referee
COPY kifu kifu
COPY rules rules
COPY loaders loaders
COPY queries queries
COPY app app
COPY samples samples
RUN pip install --no-deps -e . \
    && useradd --create-home --uid 10001 kifu \
    && mkdir -p /data \
    && chown kifu /data

USER kifu
VOLUME ["/data"]
EXPOSE 8501

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health').read() != b'ok')"

# Inside a container the server must listen on all interfaces; publish the port on
# 127.0.0.1 only (see docker-compose.yml) unless you mean to share it.
CMD ["sh", "-c", "kifu ingest --sample --db \"$KIFU_DB\" --no-progress && exec kifu serve --db \"$KIFU_DB\" --host 0.0.0.0 --port 8501"]
