function probe_one(ds, datadir, srcdir, relevant, outfile)
% Run the authors' OSSFS.m (from SRCDIR) on one data set with the PROBE STUB Fisher_Ztest that
% run_probe.sh writes next to it: the stub declares the features of the stream relevant or not
% from the global mask PROBE_MASK (RELEVANT = 'all', or k: the first k features), so only the
% aggregation stage of OSSFS runs. NOT a reference output of OSSFS (its test is not public).
% Appends one line to OUTFILE: what OSSFS printed (bandwidth, number of clusters) and returned.
  global PROBE_MASK PROBE_K
  warning('off', 'all');
  addpath(srcdir);
  pkg load statistics                % pdist, squareform, pdist2
  X = dlmread(fullfile(datadir, [ds '_X.csv']), ',');
  y = dlmread(fullfile(datadir, [ds '_y.csv']));
  y = y(:);
  [n, p] = size(X);
  if ischar(relevant)
    PROBE_MASK = true(1, p);
    label = 'all';
  else
    PROBE_MASK = false(1, p);
    PROBE_MASK(1:relevant) = true;
    label = sprintf('first%d', relevant);
  end
  PROBE_K = 0;
  rand('state', 0); randn('state', 0);
  s0 = rand('state'); s1 = randn('state');
  f = fopen(outfile, 'a');
  try
    t0 = tic;
    out = evalc('[sel, tin] = OSSFS(X, y, 0.05);');
    wall = toc(t0);
    drew = ~isequal(s0, rand('state')) || ~isequal(s1, randn('state'));
    nums = regexp(out, '[-+]?[0-9]*\.?[0-9]+(e[-+]?[0-9]+)?', 'match');
    bw = nums{1};                    % as disp(bandwidth) printed it (5 significant digits)
    k = strfind(out, 'cluster Num');
    ncl = sscanf(out(k + 11:end), '%d', 1);
    sel = full(sel(:)');
    fprintf(f, '%s %d x %d relevant=%s bandwidth=%s clusters=%d drew_random=%d time=%.3f s n_selected=%d selected(1-based, order returned)=[%s]\n', ...
            ds, n, p, label, bw, ncl, drew, wall, numel(sel), strtrim(sprintf('%d ', sel)));
  catch err
    fprintf(f, '%s %d x %d relevant=%s FAILED: %s\n', ds, n, p, label, err.message);
  end
  fclose(f);
end
